"""Signals the catalog sends for what Django's model signals do not say.

``load_catalog`` saves the shipped rows raw (as ``loaddata`` does), and a raw
save's ``post_save`` is marked ``raw=True``, which receivers rightly ignore as
"not a change by the site". After it added rows it sends :data:`catalog_loaded`
instead, so whoever re-prices on a catalog change (the planner's background
tasks) hears of it without the catalog importing them.
"""

from django.dispatch import Signal

catalog_loaded = Signal()
"""Sent by ``manage.py load_catalog`` after it added rows (keyword ``added``: how many)."""
