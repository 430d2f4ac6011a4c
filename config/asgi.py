"""The ASGI application: ``uvicorn config.asgi:application``.

The server's command line is ``tournaments.demo.processes.asgi_server_argv`` (and deploy/).

``http_application`` is the Django application for HTTP. With
``CARDROOM_SERVE_STATIC=1`` (set by ``manage.py demo``) it also serves the
static files itself, from the apps' folders; in production the reverse proxy
serves ``STATIC_ROOT`` instead (``manage.py collectstatic``, see deploy/).
``application`` routes HTTP to ``http_application`` (behind the request size limit,
``config.request_size``) and WebSockets
(``tournaments.sockets.routing``, the live dashboard) through the session authentication,
a check of the ``Origin`` header against ``ALLOWED_HOSTS`` and the per-client socket
and frame size limits (``config.websocket_limits``).
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_application = get_asgi_application()

if os.environ.get("CARDROOM_SERVE_STATIC", "").strip().lower() in ("1", "true", "yes", "on"):
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    http_application = ASGIStaticFilesHandler(django_application)
else:
    http_application = django_application

from channels.auth import AuthMiddlewareStack  # noqa: E402  (after Django is set up)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.request_size import limit_request_size  # noqa: E402
from config.websocket_limits import limit_websockets  # noqa: E402
from tournaments.sockets.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # A body over CARDROOM_MAX_REQUEST_BYTES is refused before it is received.
        "http": limit_request_size(http_application),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(limit_websockets(URLRouter(websocket_urlpatterns)))
        ),
    }
)
