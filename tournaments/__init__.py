"""Tournaments: competitions, rounds, matches, results and ratings."""
