"""`pip install ./python` works with no network (the in-tree build backend needs no
setuptools download) and installs a package that imports and records from outside the
source tree."""
import os
import subprocess
import sys
import unittest

from support import SOURCE_DIR, temp_dir


class PipInstall(unittest.TestCase):
    def test_pip_install_into_a_venv_without_network(self):
        folder = temp_dir(self)
        venv = os.path.join(folder, "venv")
        # --system-site-packages: the venv sees the system's torch, as a user's would.
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        python = os.path.join(venv, "bin", "python")
        environment = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                           PYTHONDONTWRITEBYTECODE="1")
        environment.pop("PYTHONPATH", None)  # the installed copy, not the source tree
        result = subprocess.run([python, "-m", "pip", "install", os.path.join(SOURCE_DIR, "python")],
                                capture_output=True, text=True, env=environment, timeout=300)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        script = ("import ampscope, torch\n"
                  "m = torch.nn.Linear(3, 2)\n"
                  "with ampscope.Recorder('run', m, probe_every=1) as rec:\n"
                  "    loss = m(torch.randn(4, 3)).pow(2).mean(); loss.backward(); rec.step(loss)\n"
                  "print(ampscope.__file__)\n")
        result = subprocess.run([python, "-c", script], capture_output=True, text=True,
                                env=environment, cwd=folder, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.strip().startswith(venv), result.stdout)
        self.assertTrue(os.path.exists(os.path.join(folder, "run", "summary.json")))


if __name__ == "__main__":
    unittest.main()
