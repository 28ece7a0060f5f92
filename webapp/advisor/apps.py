from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AdvisorConfig(AppConfig):
    """The sizing advisor and "the guide, checked": pages built from the catalog and the engine."""

    name = "webapp.advisor"
    label = "advisor"
    verbose_name = _("Sizing advisor")

    def ready(self) -> None:
        from webapp.catalog import selectors

        # The checked guide is cached under the catalog's version: keep the version current.
        selectors.watch_catalog_changes()
