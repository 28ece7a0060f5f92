from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CatalogConfig(AppConfig):
    name = "webapp.catalog"
    label = "catalog"
    verbose_name = _("Price catalog")

    def ready(self) -> None:
        # Django's way to connect receivers: models are loaded only once ready() runs.
        from webapp.catalog import receivers  # noqa: F401
