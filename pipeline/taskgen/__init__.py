"""Step 4: verifiable tasks with difficulty knobs, every one proven before it ships.

``families/`` holds one module per task family; ``locate`` names rows the way a user
would; ``proof`` derives each verifier's expected diff by replay and probes it; the
wording comes from ``templates/phrasings/``.
"""

from pipeline.taskgen.families import FAMILIES, Family
from pipeline.taskgen.generate import generate_tasks
from pipeline.taskgen.model import Candidate, Grounding, Skip, Task, TaskSet, ToolCall
from pipeline.taskgen.proof import prove

__all__ = ["FAMILIES", "Candidate", "Family", "Grounding", "Skip", "Task", "TaskSet", "ToolCall",
           "generate_tasks", "prove"]
