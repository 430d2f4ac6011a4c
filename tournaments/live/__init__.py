"""What is live: the events of a competition and the notifications that announce a
change (``events``, carried over the channel layer by ``relay``), and the match a worker
publishes while it plays it (``publisher``). A leaf: it imports nothing of the project."""
