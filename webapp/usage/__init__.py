"""Measured usage as a service: a file's text in, GPU-hours per month out (no models).

The API (``POST /api/v1/usage``), the planner's "Use measured usage" page and
``manage.py usage`` all read files through :mod:`webapp.usage.services`; the
readers themselves are :mod:`costmodel.usage`.
"""
