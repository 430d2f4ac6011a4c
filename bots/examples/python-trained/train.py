"""Train the example policy: REINFORCE with a baseline, numpy only, a few minutes on a CPU.

    python bots/examples/python-trained/train.py                   # maniglia-3, 3 minutes
    python bots/examples/python-trained/train.py --minutes 20 --resume

The policy (a perceptron with one hidden layer of ``--hidden`` tanh units) plays one
seat, chosen at random each game, against ``builtin:random`` in the others (or built-ins
drawn from ``--opponents``, say ``random,greedy``); after each
game every one of its decisions is pushed towards the labels it chose, by how much
better the game ended than the recent average (the baseline). The reward is the
training environments' (docs/training.md): ``(seats ranked below - seats ranked above)
/ (players - 1)``. Each decision sees the vector ``games.envs.encoding`` builds, and
only the legal ids are scored, exactly as :class:`bots.sdk.policy.PolicyBot` plays it
in a match. Weights go to ``weights.npz`` beside this file every ``--save-every``
batches, so training can stop at any time and go on with ``--resume``.

Runs in the project's environment (``pip install -e '.[rl]'`` gives numpy); the bot
itself runs in the sandbox with the numpy the sandbox provides.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent))  # the checkout: games and bots.sdk

import games  # noqa: E402
from bots import builtin  # noqa: E402
from bots.sdk.policy import forward, load, save  # noqa: E402
from games.envs.encoding import Encoder  # noqa: E402


class Adam:
    """The Adam optimiser over a list of arrays (ascent: ``step`` adds the update)."""

    def __init__(self, params: list[np.ndarray], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            m_hat = m / (1 - 0.9**self.t)
            v_hat = v / (1 - 0.999**self.t)
            p += self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def reward(ranking: list[int], seat: int) -> float:
    """The environments' end-of-game reward of ``seat`` (rank 0 is first)."""
    mine = ranking[seat]
    below = sum(1 for r in ranking if r > mine)
    above = sum(1 for r in ranking if r < mine)
    return (below - above) / (len(ranking) - 1)


def play(game, encoder, layers, rng: random.Random, np_rng, seed: int, opponents: list[str]):
    """One game: the policy's seat, its decisions ``(x, legal ids, chosen)``, its reward.

    Each other seat is one of ``opponents`` (built-in names), drawn for the game."""
    state = game.new_game(seed)
    seat = rng.randrange(game.num_players)
    others = {p: rng.choice(opponents) for p in range(game.num_players) if p != seat}
    bots = {p: builtin.make(name, seed=seed + p) for p, name in others.items() if name != "random"}
    decisions = []
    while not state.is_over():
        ids = state.legal_ids()
        mover = state.current_player()
        if mover in bots and len(ids) > 1:
            state.apply(bots[mover].act(state.observation(mover), state.legal_actions()))
            continue
        if mover != seat or len(ids) == 1:
            state.apply_id(ids[int(rng.random() * len(ids))])
            continue
        x = encoder.encode(state, seat)
        logits = forward(layers, x)[ids]
        p = np.exp(logits - logits.max())
        p /= p.sum()
        k = int(np_rng.choice(len(ids), p=p))
        decisions.append((x, ids, k))
        state.apply_id(ids[k])
    return decisions, reward(state.ranking(), seat)


def gradients(layers, batch, advantages):
    """Gradient of sum(advantage * log pi(chosen)) over the batch's decisions."""
    xs = np.stack([x for game in batch for x, _, _ in game])
    adv = np.concatenate([[a] * len(game) for game, a in zip(batch, advantages, strict=True)])
    activations = [xs]
    h = xs
    for w, b in layers[:-1]:
        h = np.tanh(h @ w + b)
        activations.append(h)
    w_out, b_out = layers[-1]
    logits = h @ w_out + b_out
    dlogits = np.zeros_like(logits)
    row = 0
    for game in batch:
        for _, ids, k in game:
            z = logits[row, ids]
            p = np.exp(z - z.max())
            p /= p.sum()
            g = -p
            g[k] += 1.0  # d log softmax(z)[k] / dz, over the legal ids only
            dlogits[row, ids] = g * adv[row]
            row += 1
    grads = []
    delta = dlogits
    for i in range(len(layers) - 1, -1, -1):
        w, _ = layers[i]
        a = activations[i]
        grads.append((a.T @ delta, delta.sum(axis=0)))
        if i:
            delta = (delta @ w.T) * (1 - a * a)
    grads.reverse()
    return [g for pair in grads for g in pair]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="maniglia-3")
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument(
        "--opponents", default="random", help="built-ins the other seats are drawn from: a,b"
    )
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--batch", type=int, default=64, help="games per update")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save-every", type=int, default=20)
    parser.add_argument("--out", type=Path, default=HERE / "weights.npz")
    parser.add_argument("--resume", action="store_true", help="start from --out")
    args = parser.parse_args(argv)

    game = games.load(args.variant)
    opponents = args.opponents.split(",")
    unknown = sorted(set(opponents) - set(builtin.names()))
    if unknown:
        parser.error(f"--opponents: no built-in {unknown[0]!r} (known: {builtin.names()})")
    encoder = Encoder(game)
    actions = game.variant.num_distinct_actions
    np_rng = np.random.default_rng(args.seed)
    rng = random.Random(args.seed)
    if args.resume:
        layers, trained_for = load(args.out)
        if trained_for != args.variant:
            parser.error(f"{args.out} was trained for {trained_for}, not {args.variant}")
    else:
        layers = [
            (
                np_rng.normal(0, 1 / np.sqrt(encoder.size), (encoder.size, args.hidden)),
                np.zeros(args.hidden),
            ),
            (np.zeros((args.hidden, actions)), np.zeros(actions)),
        ]
    layers = [(w.astype(np.float64), b.astype(np.float64)) for w, b in layers]
    params = [p for pair in layers for p in pair]
    optimiser = Adam(params, args.lr)
    baseline, seen, started, batches = 0.0, 0, time.monotonic(), 0
    print(
        f"{args.variant}: {encoder.size} observation numbers, {actions} action ids, "
        f"{sum(p.size for p in params)} weights",
        flush=True,
    )
    while time.monotonic() - started < args.minutes * 60:
        batch, rewards = [], []
        for _ in range(args.batch):
            decisions, r = play(game, encoder, layers, rng, np_rng, rng.randrange(2**62), opponents)
            batch.append(decisions)
            rewards.append(r)
        mean = float(np.mean(rewards))
        baseline = mean if not seen else 0.9 * baseline + 0.1 * mean
        optimiser.step(gradients(layers, batch, [r - baseline for r in rewards]))
        seen += len(batch)
        batches += 1
        if batches % args.save_every == 0:
            save(args.out, layers, args.variant)
            print(
                f"{seen:7d} games, {time.monotonic() - started:6.0f} s: mean reward "
                f"against {args.opponents} {baseline:+.3f} (0 = as good as them)",
                flush=True,
            )
    save(args.out, layers, args.variant)
    print(f"saved {args.out} after {seen} games", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
