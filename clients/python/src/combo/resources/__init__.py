"""Hand-written resources: what the generated ones cannot say (following runs, streams, waiting, signing)."""
