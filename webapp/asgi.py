"""ASGI entry point: what gunicorn serves (``make serve``, see gunicorn.conf.py).

Served by gunicorn's asyncio worker, a request's body is read by the event
loop before Django sees the request, so a client that sends its body slowly
holds a socket, not a worker. The views stay synchronous.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
application = get_asgi_application()
