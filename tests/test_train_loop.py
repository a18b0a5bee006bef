"""The training loop both trained models share (eval/train_loop.py): a run stopped by its time
limit resumes from its checkpoint to the same weights as a run never stopped, and a checkpoint
written for other settings or data is not resumed from."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from eval.train_loop import Loop  # noqa: E402


def _model():
    torch.manual_seed(0)
    return torch.nn.Linear(3, 1)


def _loss_of(model):
    inputs = torch.arange(12, dtype=torch.float32).reshape(4, 3) / 10
    target = torch.tensor([[1.0], [0.0], [1.0], [0.0]])

    def loss_of(step: int):
        return torch.nn.functional.mse_loss(model(inputs + step / 100), target)
    return loss_of


def test_a_stopped_run_resumes_to_the_weights_of_a_run_never_stopped(tmp_path):
    whole = _model()
    assert Loop(whole, 0.1, 6, 0.2, tmp_path / "a.pt", {"k": 1}).run(_loss_of(whole))
    stopped = _model()
    first = Loop(stopped, 0.1, 6, 0.2, tmp_path / "b.pt", {"k": 1})
    assert not first.run(_loss_of(stopped), max_minutes=1e-9)  # stops after its first step, checkpointed
    assert first.step == 1
    again = _model()
    loop = Loop(again, 0.1, 6, 0.2, tmp_path / "b.pt", {"k": 1})
    loop.resume()
    assert loop.step == 1 and loop.run(_loss_of(again))
    for a, b in zip(whole.parameters(), again.parameters()):
        assert torch.allclose(a, b)


def test_a_checkpoint_of_other_settings_is_not_resumed(tmp_path):
    model = _model()
    Loop(model, 0.1, 3, 0.2, tmp_path / "c.pt", {"k": 1}).run(_loss_of(model))
    other = Loop(_model(), 0.1, 3, 0.2, tmp_path / "c.pt", {"k": 2})
    other.resume()
    assert other.step == 0
