"""``manage.py demo``: its child processes (``processes``: Redis, a worker, the ASGI
server) and what it puts in the database and prints (``data``)."""
