from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScenariosConfig(AppConfig):
    name = "webapp.scenarios"
    label = "scenarios"
    verbose_name = _("Saved scenarios")

    def ready(self) -> None:
        # Django's way to connect receivers: models are loaded only once ready() runs.
        from webapp.scenarios import receivers  # noqa: F401
