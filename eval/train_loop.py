"""The training loop the models trained here share (``eval/verifier_train.py``,
``eval/encoder_train.py``): AdamW's steps under a linear warm-up and decay, a checkpoint every few
minutes that a stopped run resumes from (when it was written for the same settings and data),
progress with an ETA on stderr, and a time limit that stops resumably."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class Loop:
    """``run(loss_of)`` trains ``model`` for ``total`` steps; ``loss_of(step)`` gives a step's loss."""

    def __init__(self, model, lr: float, total: int, warmup: float, checkpoint: Path, key: dict, every: int = 20):
        import torch

        self.model, self.total, self.checkpoint, self.key, self.every = model, total, checkpoint, key, every
        self.optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr,
                                           weight_decay=0.01)
        warm = max(1, int(total * warmup))
        self.schedule = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))
        self.step = 0

    def resume(self) -> None:
        """Go on from the checkpoint when it is this run's (same settings and data); else start over."""
        import torch

        if not self.checkpoint.is_file():
            return
        state = torch.load(self.checkpoint, weights_only=False)
        if state.get("key") != self.key:
            say(f"{self.checkpoint}: from other settings or data; starting over")
            return
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.schedule.load_state_dict(state["schedule"])
        self.step = state["step"]
        torch.set_rng_state(state["rng"])
        say(f"resumed at step {self.step}/{self.total}")

    def save(self) -> None:
        import torch

        partial = self.checkpoint.with_suffix(".partial")
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "schedule": self.schedule.state_dict(), "step": self.step, "rng": torch.get_rng_state(),
                    "key": self.key}, partial)
        os.replace(partial, self.checkpoint)

    def run(self, loss_of: Callable[[int], object], max_minutes: float = 0.0, checkpoint_minutes: float = 5.0) -> bool:
        """Train to the last step (True), or stop after ``max_minutes`` with a checkpoint (False)."""
        import torch

        self.model.train()
        started = last_save = time.perf_counter()
        first, running = self.step, []
        while self.step < self.total:
            loss = loss_of(self.step)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.schedule.step()
            self.optimizer.zero_grad()
            self.step += 1
            running = (running + [float(loss.detach())])[-50:]
            now = time.perf_counter()
            if self.step % self.every == 0 or self.step == self.total:
                rate = (now - started) / max(1, self.step - first)
                say(f"step {self.step}/{self.total} loss {sum(running) / len(running):.4f} "
                    f"({rate:.2f} s/step, about {(self.total - self.step) * rate / 60:.1f} min left)")
            if now - last_save > checkpoint_minutes * 60 or self.step == self.total:
                self.save()
                last_save = now
            if max_minutes and now - started > max_minutes * 60 and self.step < self.total:
                self.save()
                say(f"stopped after {max_minutes} min at step {self.step}/{self.total}; run again to resume")
                return False
        self.model.eval()
        return True
