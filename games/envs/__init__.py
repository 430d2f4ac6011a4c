"""Cardroom's variants for training libraries (the optional ``rl`` extra, docs/training.md).

``games.envs.pettingzoo.env(variant_id, **options)``: a PettingZoo AEC environment;
``import games.envs.openspiel``: registers every variant as an OpenSpiel Python game;
``games.envs.gymnasium.env(variant_id, opponents=..., seat=None, **options)``: one seat
as a Gymnasium environment against fixed opponents (``games.envs.opponents``).
Only this package imports numpy, gymnasium, pettingzoo or pyspiel; nothing else in
``games`` imports it.
"""
