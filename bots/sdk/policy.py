"""A trained policy as a bot: the observation vector in, the best legal label out.

The vector is the one the training environments give (``games.envs.encoding``,
docs/training.md), built here from the ``act`` message's observation, so a policy
trained with ``games.envs.pettingzoo`` or ``games.envs.openspiel`` plays a match
seeing exactly what it saw in training. The legal labels become the mask: only
their action ids are scored. Needs ``numpy``, which the sandbox provides to Python
bots (PROTOCOL.md, "What a bot may import")::

    from bots.sdk import run
    from bots.sdk.policy import PolicyBot

    if __name__ == "__main__":
        run(PolicyBot.beside(__file__, "weights.npz"))

The weights file is a ``numpy.savez`` archive of a small multilayer perceptron:
``w0, b0, w1, b1, ...`` (``w_k`` of shape ``(inputs, outputs)``), ``tanh`` between
layers, the last layer's outputs the logits of the ``num_distinct_actions`` ids;
``variant`` names the variant it was trained for (:func:`save` writes one). A file
that does not fit the variant of the match (another observation size or action
space) stops the bot at ``hello`` with a sentence saying so on stderr, which
validation reports.

Two other kinds of policy become bots the same way (:func:`policy_bot` picks by name):

- a **tabular policy** (information-state string to action probabilities, what CFR
  computes), written by :func:`save_tabular` from an OpenSpiel ``TabularPolicy`` or
  MCCFR policy and played by :class:`TabularBot` (``bots.sdk.tabular``);
- **any Python callable** shipped in the bot's archive, named ``module:function``
  and played by :class:`CallableBot`.

::

    run(policy_bot(__file__, "weights.npz"))      # a perceptron (numpy)
    run(policy_bot(__file__, "policy.json"))      # a table (.json or .json.gz)
    run(policy_bot(__file__, "mypolicy:act"))     # act(observation, legal) in mypolicy.py
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import games
from bots.sdk.bot import Bot
from bots.sdk.tabular import (
    TABULAR_FORMAT,
    PolicyError,
    TabularBot,
    info_state,
    load_tabular,
    save_tabular,
)
from games.envs.encoding import Encoder, action_labels

__all__ = [
    "FORMAT",
    "TABULAR_FORMAT",
    "CallableBot",
    "PolicyBot",
    "PolicyError",
    "TabularBot",
    "forward",
    "info_state",
    "load",
    "load_callable",
    "load_tabular",
    "policy_bot",
    "save",
    "save_tabular",
]

#: The ``format`` entry of the weights files this module reads and writes.
FORMAT = "cardroom-mlp-1"


def save(path: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], variant: str) -> None:
    """Write ``layers`` (``(weights, bias)`` pairs, first layer first) for ``variant``."""
    arrays: dict[str, Any] = {"format": np.array(FORMAT), "variant": np.array(variant)}
    for k, (w, b) in enumerate(layers):
        arrays[f"w{k}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{k}"] = np.asarray(b, dtype=np.float32)
    with open(path, "wb") as f:  # savez would add ".npz" to a name without it
        np.savez_compressed(f, **arrays)


def load(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The layers and the trained-for variant of a weights file, checked for shape."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as exc:
        raise PolicyError(f"cannot read the weights file {path}: {exc}") from None
    if str(arrays.get("format", "")) != FORMAT:
        raise PolicyError(f"{path} is not a {FORMAT} weights file (its 'format' entry)")
    layers = []
    while f"w{len(layers)}" in arrays:
        k = len(layers)
        w, b = arrays[f"w{k}"], arrays.get(f"b{k}")
        if w.ndim != 2 or b is None or b.shape != (w.shape[1],):
            raise PolicyError(f"{path}: layer {k} is not a (inputs, outputs) matrix and its bias")
        if layers and layers[-1][0].shape[1] != w.shape[0]:
            raise PolicyError(
                f"{path}: layer {k} takes {w.shape[0]} inputs, layer {k - 1} gives "
                f"{layers[-1][0].shape[1]}"
            )
        layers.append((w.astype(np.float32), b.astype(np.float32)))
    if not layers:
        raise PolicyError(f"{path} holds no layers (w0, b0, ...)")
    return layers, str(arrays.get("variant", ""))


def forward(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The logits of the perceptron for the observation vector(s) ``x``."""
    for w, b in layers[:-1]:
        x = np.tanh(x @ w + b)
    w, b = layers[-1]
    return x @ w + b


class PolicyBot(Bot):
    """Plays the legal label whose action id the policy scores highest."""

    name = "policy"

    def __init__(self, weights: str | Path) -> None:
        self.path = Path(weights)
        self.layers, self.trained_for = load(self.path)
        self.encoder: Encoder | None = None
        self.seat = 0

    @classmethod
    def beside(cls, script: str, filename: str) -> PolicyBot:
        """The bot whose weights file lies next to ``script`` (a bot's ``__file__``)."""
        return cls(Path(script).resolve().parent / filename)

    def start(self, hello: dict[str, Any]) -> None:
        variant = hello.get("variant")
        game = games.load(variant, **dict(hello.get("options") or {}))
        encoder = Encoder(game)
        inputs, outputs = self.layers[0][0].shape[0], self.layers[-1][0].shape[1]
        actions = game.variant.num_distinct_actions
        if (inputs, outputs) != (encoder.size, actions):
            message = (
                f"{self.path.name} does not fit {variant}: it takes {inputs} observation "
                f"numbers and scores {outputs} actions, {variant} gives {encoder.size} "
                f"and has {actions} (trained for {self.trained_for or 'an unnamed variant'})"
            )
            print(message, file=sys.stderr, flush=True)
            raise PolicyError(message)
        self.encoder, self.seat = encoder, hello["seat"]
        self.ids = {label: i for i, label in enumerate(action_labels(game))}

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        if len(legal) == 1 or self.encoder is None or observation is None:
            return legal[0]
        logits = forward(self.layers, self.encoder.encode_observation(observation, self.seat))
        return max(legal, key=lambda label: logits[self.ids[label]])


def load_callable(spec: str, root: str | Path) -> Callable[..., Any]:
    """The object ``module:name`` of a module under ``root`` (the bot's own folder).

    The module is imported with ``root`` first on ``sys.path``; a dotted ``name``
    follows attributes (``module:Class.method``). Raises :class:`PolicyError` naming
    what is missing."""
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise PolicyError(f"{spec!r} does not name a callable as module:function")
    root = str(Path(root).resolve())
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise PolicyError(f"{spec}: no module {exc.name!r} in {root}") from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise PolicyError(f"{spec}: {module_name} has no {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise PolicyError(f"{spec}: {attribute} is a {type(target).__name__}, not callable")
    return target


class CallableBot(Bot):
    """Plays what ``fn(observation, legal)`` returns: a legal label, or an action id.

    ``fn`` is any callable (a function, or an object with ``__call__``); if it has
    ``start(hello)`` or ``game_over(result)`` they are called as a bot's are. A class
    is instantiated once, without arguments. An answer that is neither a legal label
    nor the action id of one stops the bot with a sentence naming it and the legal
    labels."""

    name = "callable"

    def __init__(self, fn: Callable[..., Any], name: str = "") -> None:
        self.fn = fn() if isinstance(fn, type) else fn
        self.name = name or getattr(fn, "__name__", "callable")
        self.labels: list[str] = []

    @classmethod
    def beside(cls, script: str, spec: str) -> CallableBot:
        """The bot of ``module:function`` found next to ``script`` (a bot's ``__file__``)."""
        return cls(load_callable(spec, Path(script).resolve().parent), name=spec)

    def start(self, hello: dict[str, Any]) -> None:
        game = games.load(hello.get("variant"), **dict(hello.get("options") or {}))
        self.labels = list(action_labels(game))
        if hasattr(self.fn, "start"):
            self.fn.start(hello)

    def game_over(self, result: dict[str, Any]) -> None:
        if hasattr(self.fn, "game_over"):
            self.fn.game_over(result)

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        answer = self.fn(observation, legal)
        if isinstance(answer, str) and answer in legal:
            return answer
        if type(answer) is int and 0 <= answer < len(self.labels) and self.labels[answer] in legal:
            return self.labels[answer]
        message = f"{self.name} answered {answer!r}, which is not one of the legal {legal}"
        print(message, file=sys.stderr, flush=True)
        raise PolicyError(message)


def policy_bot(script: str, name: str, **kwargs: Any) -> Bot:
    """The bot of the policy ``name`` beside ``script``: ``*.npz`` a perceptron
    (:class:`PolicyBot`), ``*.json`` or ``*.json.gz`` a table (:class:`TabularBot`),
    ``module:function`` a callable (:class:`CallableBot`)."""
    if ":" in name:
        return CallableBot.beside(script, name)
    if name.endswith((".json", ".json.gz")):
        return TabularBot.beside(script, name, **kwargs)
    if name.endswith(".npz"):
        return PolicyBot.beside(script, name)
    raise PolicyError(f"{name}: not a policy (a .npz, .json, .json.gz file or module:function)")
