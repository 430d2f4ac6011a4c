"""The WebSocket door of the competitions: the routes (``routing``), the consumers
(``consumers``) and each web process's fan-out of a competition's events
(``fanout``) and of a match watched while it is played (``match_fanout``)."""
