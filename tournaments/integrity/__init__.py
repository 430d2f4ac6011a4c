"""Fair play that is not a read: the secret deals and how anyone checks them
(``deals``), and the soft-play tallies of the game records, counted off the match's hot
path (``chances``)."""
