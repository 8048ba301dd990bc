"""What the Python tests share."""

# 1 ms of two schemes on the 144-host fabric: a second or so in all.
SCENARIO = """
name = "t"
engine = "packet"
duration_ms = 1.0
seed = 1
[fabric]
kind = "preset"
name = "flowtune-144"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
[[schemes]]
name = "dctcp"
[[schemes]]
name = "newreno"
"""
