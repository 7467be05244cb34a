"""Trainer integrations: OpenEnv, TRL and verifiers adapters, and the trajectory log.

Each adapter is one module built on the public episode contract; the heavy libraries
(openenv-core, trl, verifiers) are optional extras imported only by their own module.
"""
