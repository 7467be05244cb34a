"""Step 4 entry point: tasks with a reference solution and a declarative verifier.

The implementation lives in :mod:`pipeline.taskgen` (one module per family); this
module keeps the names the other steps and the runtime import.
"""

from pipeline.taskgen import FAMILIES, Candidate, Grounding, Task, TaskSet, ToolCall, generate_tasks, prove

__all__ = ["FAMILIES", "Candidate", "Grounding", "Task", "TaskSet", "ToolCall", "generate_tasks", "prove"]
