#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    # Settings read the environment; a bad or missing variable is the user's to fix,
    # so say which one in a line instead of the traceback Django would print.
    try:
        settings.INSTALLED_APPS  # noqa: B018 - forces the settings module to load
    except ImproperlyConfigured as exc:
        sys.stderr.write(f"manage.py: configuration error: {exc}\n")
        sys.exit(2)

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
