"""The environment a child interpreter runs engine code in, as the engine's entry point
would give itself (engine.runtime: PyPy's nursery), for the scripts that run engine code
through ``python -c``: their PyPy figures are then the engine's own."""

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_PROBE = ("from engine.runtime import needs_restart, NURSERY_VARIABLE, NURSERY; "
          "print(NURSERY_VARIABLE + '=' + NURSERY if needs_restart() else '')")


def engine_environment(python):
    """os.environ, plus what engine.runtime would set under ``python`` (this checkout's
    rule, also for a side that runs an older checkout)."""
    out = subprocess.run([python, "-c", _PROBE], cwd=str(REPO), capture_output=True,
                         text=True, check=True).stdout.strip()
    env = dict(os.environ)
    if out:
        name, value = out.split("=", 1)
        env[name] = value
    return env
