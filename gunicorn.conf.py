"""gunicorn settings, read automatically when gunicorn starts from the repository root
(`make serve`, benchmarks/load.sh, tests/webapp/test_slow_clients.py).

Worker model: gunicorn's asyncio (ASGI) worker serving Django's ASGI handler.
The event loop reads every request (line, headers and body) without tying up
anything but a socket; Django's handler waits for the whole body before it
runs the (synchronous) view in the worker's thread. So clients that send
their body slowly, or not at all, cost a few kilobytes each and never hold a
worker, where a sync worker would be held for as long as the client takes
(and killed after `timeout`). See docs/production.md, "Worker model".
"""

import gc
import multiprocessing
import os
import warnings

wsgi_app = "webapp.asgi:application"
# gunicorn's asyncio worker, accepting new connections so that they spread evenly
# over the workers (webapp/serving.py; asyncio's own server lets one worker take a burst).
worker_class = "webapp.serving.BalancedASGIWorker"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count())
# Connections one worker keeps open at once, idle or trickling ones included.
worker_connections = 1000
# Results permalinks carry the whole explicit scenario (about 3.5 KB for a custom
# parts list); gunicorn's default request-line limit is 4094 bytes, its maximum 8190.
limit_request_line = 8190
# The asyncio worker gives up on a body that stops arriving for this long [s].
timeout = 60

# WhiteNoise hands Django a file iterator that is not async; Django then reads it in
# a thread and warns once per process. Static files are small: the warning is noise.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators"
)


def post_worker_init(worker: object) -> None:
    """Once a worker has loaded the site, keep what it loaded out of the garbage collector's way.

    Python's full collections walk every object that has survived earlier
    ones, and after startup that is Django, numpy, the URLconf and everything
    else imported: about 90 000 objects, which nothing frees while the worker
    lives. Under load, each worker's first full collection stopped it for
    140-200 ms (the slowest answers of benchmarks/load.sh, 180-310 ms, were
    those pauses); frozen, those objects are no longer walked, the pauses take
    a few milliseconds and the slowest answer was 27-73 ms.
    """
    gc.freeze()
