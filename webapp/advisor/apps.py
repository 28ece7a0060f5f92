from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AdvisorConfig(AppConfig):
    """The sizing advisor and "the guide, checked": pages built from the catalog and the engine."""

    name = "webapp.advisor"
    label = "advisor"
    verbose_name = _("Sizing advisor")
