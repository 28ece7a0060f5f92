from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlannerConfig(AppConfig):
    name = "webapp.planner"
    label = "planner"
    verbose_name = _("Planner")

    def ready(self) -> None:
        # The background tasks' signal receivers (a catalog change, a new save: planner.tasks);
        # connected here, the app that may import the others.
        from webapp.planner import tasks  # noqa: F401
