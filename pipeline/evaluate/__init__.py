"""Measured difficulty: a policy (a model or a scripted baseline) played on a bundle, scored per family × level."""
