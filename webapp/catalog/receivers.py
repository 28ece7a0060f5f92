"""Signal receivers of the catalog (connected by :class:`CatalogConfig.ready`)."""

from __future__ import annotations

from typing import Any

from django.db.models import Model
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from webapp.catalog.services import bump_catalog_version


@receiver(post_save, dispatch_uid="catalog-version-on-save")
@receiver(post_delete, dispatch_uid="catalog-version-on-delete")
def catalog_changed(sender: type[Model], raw: bool = False, **kwargs: Any) -> None:
    """A catalog row was saved or deleted (in the admin, by an import): new version.

    Fixture loading (``raw``) saves hundreds of rows; ``load_catalog`` bumps
    the version once when it is done instead.
    """
    if sender._meta.app_label == "catalog" and not raw:
        bump_catalog_version()
