"""gunicorn settings, read automatically when gunicorn starts from the repository root
(`make serve`, benchmarks/load.sh)."""

import multiprocessing
import os

workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * multiprocessing.cpu_count())
# Results permalinks carry the whole explicit scenario (about 3.5 KB for a custom
# parts list); gunicorn's default request-line limit is 4094 bytes, its maximum 8190.
limit_request_line = 8190
timeout = 60
