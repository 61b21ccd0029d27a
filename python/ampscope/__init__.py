"""ampscope: records a PyTorch training run into an AmpScope run directory.

Three lines in a training loop:

    import ampscope
    rec = ampscope.Recorder("runs/my-run", model, optimizer=opt, scaler=scaler, mode="fp16")
    ...; scaler.update(); rec.step(loss)     # every step
    rec.close()

then open the directory with the AmpScope window (`ampscope --open-run runs/my-run`)
or `ampscope-cli report runs/my-run --out report.html`.
"""
from ._version import __version__
from .recorder import Recorder, RecorderWriteError
from .run_writer import RunWriteError

__all__ = ["Recorder", "RecorderWriteError", "RunWriteError", "__version__"]
