"""What a visitor watching sees, read for every door: a match while it is played
(:mod:`tournaments.watching.live_match`, from what its worker publishes), the
competition's live panels (:mod:`tournaments.watching.panels` and the rounds,
bracket and queue panels beside it) and the events of its stream
(:mod:`tournaments.watching.stream`), a finished game step by step
(:mod:`tournaments.watching.replay`) and the statuses in words
(:mod:`tournaments.watching.words`). Reads only: the pages (``web``), the API
(``api``), the sockets (``tournaments.sockets.consumers``) and the stream's fan-out
(``tournaments.sockets.fanout``) show them."""
