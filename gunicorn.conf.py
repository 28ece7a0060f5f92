"""gunicorn settings, read automatically when gunicorn starts from the repository root
(`make serve`, benchmarks/, tests/webapp/test_serving.py and test_slow_clients.py).

Worker model: gunicorn manages the processes; each worker is uvicorn's, from the
maintained `uvicorn-worker` package, serving Django's own ASGI application
(webapp/asgi.py), the
deployment Django's documentation describes ("How to use Django with Uvicorn").
uvicorn reads each request, its body included, on an event loop; Django then runs
the synchronous middleware and view in a thread. A client that sends its body
slowly holds a socket, not a worker. In production, nginx in front
(docs/nginx.conf) buffers bodies and answers, balances connections and ends
requests that stall; see docs/production.md.
"""

import gc
import logging
import multiprocessing
import os
import warnings

wsgi_app = "webapp.asgi:application"
# uvicorn's stock worker. It has no deadline for a client to send its request: nginx in front
# sets one (client_header_timeout, client_body_timeout); see docs/production.md.
worker_class = "uvicorn_worker.UvicornWorker"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count())
# A worker whose event loop does not report back for this long is restarted [s].
timeout = 60
# A worker is replaced after this many requests (plus up to the jitter, so that the workers
# do not all restart at once): whatever a large request made the process take from the
# operating system, and Python's allocator keeps, is given back when the worker goes.
max_requests = 1000
max_requests_jitter = 200
# Seconds an idle keep-alive connection is kept open (uvicorn's timeout_keep_alive) [s].
keepalive = 5

# Forwarded headers (X-Forwarded-For, X-Forwarded-Proto) are believed only behind a proxy
# (DJANGO_BEHIND_PROXY=true, as the app reads it) and then only on connections from the
# proxies' own addresses (DJANGO_PROXY_ADDRESSES, default this machine). uvicorn's worker
# trusts 127.0.0.1 by default, so straight to gunicorn anyone on this machine could claim any
# address to the sign-in lockout; with no proxy, no address is trusted.
_behind_proxy = os.environ.get("DJANGO_BEHIND_PROXY", "").strip().lower() in {
    "1",
    "true",
    "yes",
    "on",
}
forwarded_allow_ips = (
    os.environ.get("DJANGO_PROXY_ADDRESSES", "127.0.0.1,::1") if _behind_proxy else ""
)

# WhiteNoise hands Django a file iterator that is not async; Django then reads it in
# a thread and warns once per process. Static files are small: the warning is noise.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators"
)


def post_worker_init(worker: object) -> None:
    """Once a worker has loaded the site, load what its first request would (webapp.warmup:
    the URLconf and its views, templates, translations, the engine's code paths, today's
    catalog), then keep all of it out of the garbage collector's way.

    Python's full collections walk every object that has survived earlier
    ones, and after startup that is Django, numpy, the URLconf and everything
    else imported: about 90 000 objects, which nothing frees while the worker
    lives. Under load, each worker's first full collection stopped it for
    140-200 ms; frozen, those objects are no longer walked and the pauses take
    a few milliseconds (docs/production.md, "Worker model").
    """
    from django.db import connections  # the site is loaded: Django is set up

    from webapp.warmup import warm_up

    try:
        warm_up()
    except Exception:  # a worker that could not warm up still serves, as it did before
        logging.getLogger("gunicorn.error").exception("warm-up failed")
    connections.close_all()  # requests run in another thread, with their own connection
    gc.freeze()
