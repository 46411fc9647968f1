"""A warm grading interpreter: Claw-Eval's package is imported once, then job after job is graded
by `clawrun_grade.run`, each as a fresh interpreter would grade it.

clawrun starts this with the checkout's folder as its argument and serves its host door: each
ring after the first delivers the previous job's result (`/grading/result.json`) and blocks
until the next job is in place — its evidence in `/grading`, its arguments and seed in
`/run/clawrun/job.json` — or answers "no host" when the worker is done, which ends the loop.
Between jobs the wall clock restarts at its epoch (clawrun does that) and `random` is reseeded
with the job's seed; each job's printed output is captured into its result.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sys

import clawrun_grade

JOB = "/run/clawrun/job.json"


def main(argv: list[str]) -> int:
    checkout = argv[0]
    sys.path.insert(0, os.path.join(checkout, "src"))
    # What every grading imports, once.
    import claw_eval.cli  # noqa: F401
    import claw_eval.graders.llm_judge  # noqa: F401
    import claw_eval.graders.registry  # noqa: F401
    import claw_eval.models.scoring  # noqa: F401
    import claw_eval.models.task  # noqa: F401
    import claw_eval.trace.reader  # noqa: F401
    import _host
    import openai

    while True:
        try:
            _host.call(b"clawrun-next-job")
        except ConnectionRefusedError:
            return 0  # no more jobs
        except OSError:
            pass  # the job is in place
        with open(JOB, encoding="utf-8") as f:
            job = json.load(f)
        random.seed(job["seed"])
        openai._sequence = 0  # judge requests are numbered per job (clawrun emptied the spool)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            result = clawrun_grade.run(job["args"])
        result["stdout"], result["stderr"] = out.getvalue(), err.getvalue()
        clawrun_grade.write(result, job["out"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
