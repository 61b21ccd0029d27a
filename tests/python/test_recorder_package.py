"""The user guide's commands that install the recorder, run as they are written, with no
network: the blocks under "<!-- tested by tests/python/test_recorder_package.py -->" in
docs/guide/recording.md (the guide's page on recording a PyTorch run, where a user reads
them) are read from the file, so the page cannot drift from what works.

- Debian bookworm's own python3: the block's `sudo apt install` line is checked (the
  packages it names are installed) instead of run; the other lines run exactly, from the
  repository root, with HOME a temporary folder (their `~`) and PATH /usr/bin:/bin (the
  python3 of a fresh Debian machine, not one a user put before it).
- Your own Python: a plain venv (no system site packages) stands in for it, first on
  PATH as `python`; pip's torch is stood in for by Debian's, made visible to the recorder
  afterwards, since nothing can be downloaded here.
- Why the page does not say `pip install ./python`: Debian's python3 refuses it (PEP
  668), and `--user` too.
"""
import os
import re
import shlex
import subprocess
import sys
import unittest

from support import SOURCE_DIR, temp_dir

MARKER = "<!-- tested by tests/python/test_recorder_package.py"
PAGE = os.path.join("docs", "guide", "recording.md")
SYSTEM_PYTHON = "/usr/bin/python3"
DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"


def page_blocks():
    """The command lines of each tested block of the recording page, in order."""
    with open(os.path.join(SOURCE_DIR, PAGE), encoding="utf-8") as handle:
        text = handle.read()
    blocks = []
    for match in re.finditer(re.escape(MARKER) + r".*?-->\n```sh\n(.*?)```", text, re.S):
        lines = []
        for line in match.group(1).splitlines():
            command = line.split("  #", 1)[0].strip()  # a comment after two spaces
            if command:
                lines.append(command)
        blocks.append(lines)
    return blocks


def clean_environment(home):
    environment = dict(os.environ, HOME=home, PIP_DISABLE_PIP_VERSION_CHECK="1",
                       PYTHONDONTWRITEBYTECODE="1")
    for name in ("PYTHONPATH", "PIP_INDEX_URL", "PIP_NO_INDEX", "VIRTUAL_ENV"):
        environment.pop(name, None)
    return environment


def run(command, environment, cwd=SOURCE_DIR):
    return subprocess.run(command, shell=True, capture_output=True, text=True, env=environment,
                          cwd=cwd, timeout=600, executable="/bin/sh")


@unittest.skipUnless(os.path.exists(SYSTEM_PYTHON), "not a Debian machine (no /usr/bin/python3)")
class GuideInstall(unittest.TestCase):
    def test_the_page_has_both_blocks(self):
        blocks = page_blocks()
        self.assertEqual(len(blocks), 2, f"{PAGE}: {blocks}")
        self.assertTrue(all("--no-index" in " ".join(block) for block in blocks))

    def test_debian_python_with_a_venv_that_sees_debians_torch(self):
        home = temp_dir(self)
        environment = clean_environment(home)
        # Debian's own commands first, as on a fresh machine (not a pyenv or conda python3).
        environment["PATH"] = "/usr/bin:/bin"
        lines = page_blocks()[0]
        apt = [line for line in lines if line.startswith("sudo apt install ")]
        self.assertEqual(len(apt), 1, lines)
        for package in shlex.split(apt[0])[3:]:
            status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package],
                                    capture_output=True, text=True)
            self.assertIn("install ok installed", status.stdout,
                          f"{package} (installer/install-deps.sh installs it)")
        for line in lines:
            if line in apt:
                continue
            result = run(line, environment)
            self.assertEqual(result.returncode, 0, f"{line}\n{result.stdout}{result.stderr}")
        venv_python = os.path.join(home, ".venvs", "ampscope", "bin", "python")
        where = subprocess.run([venv_python, "-c", "import ampscope, torch; print(ampscope.__file__)"],
                               capture_output=True, text=True, env=environment, cwd=home)
        self.assertEqual(where.returncode, 0, where.stderr)
        self.assertTrue(where.stdout.startswith(os.path.join(home, ".venvs", "ampscope")), where.stdout)
        self.assertTrue(os.path.exists(os.path.join(home, "runs", "spirals", "summary.json")))

    def test_your_own_python(self):
        home = temp_dir(self)
        own = os.path.join(home, "own-python")
        subprocess.run([SYSTEM_PYTHON, "-m", "venv", own], check=True)
        environment = clean_environment(home)
        environment["PATH"] = os.path.join(own, "bin") + os.pathsep + environment["PATH"]
        for line in page_blocks()[1]:
            result = run(line, environment)
            self.assertEqual(result.returncode, 0, f"{line}\n{result.stdout}{result.stderr}")
        # The installed recorder records, with a torch beside it (Debian's, standing in for
        # pip's) and from outside the source tree.
        script = ("import ampscope, torch\n"
                  "m = torch.nn.Linear(3, 2)\n"
                  "with ampscope.Recorder('run', m, probe_every=1) as rec:\n"
                  "    loss = m(torch.randn(4, 3)).pow(2).mean(); loss.backward(); rec.step(loss)\n"
                  "print(ampscope.__file__)\n")
        environment["PYTHONPATH"] = DEBIAN_DIST_PACKAGES
        result = subprocess.run([os.path.join(own, "bin", "python"), "-c", script],
                                capture_output=True, text=True, env=environment, cwd=home, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.strip().startswith(own), result.stdout)
        self.assertTrue(os.path.exists(os.path.join(home, "run", "summary.json")))

    def test_debians_own_python_refuses_pip_installs(self):
        environment = clean_environment(temp_dir(self))
        if subprocess.run([SYSTEM_PYTHON, "-m", "pip", "--version"], capture_output=True,
                          env=environment, timeout=300).returncode != 0:
            self.skipTest(f"{SYSTEM_PYTHON} has no pip here (python3-pip is not installed)")
        for extra in ([], ["--user"]):
            result = subprocess.run([SYSTEM_PYTHON, "-m", "pip", "install", "--no-index", *extra, "./python"],
                                    capture_output=True, text=True, env=environment, cwd=SOURCE_DIR,
                                    timeout=300)
            self.assertNotEqual(result.returncode, 0, result.stdout)
            self.assertIn("externally-managed-environment", result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
