# SPDX-License-Identifier: BSD-2-Clause
"""Results on disk -> statistics, findings, claims and the results READMEs, with
pandas and SciPy. Imports nothing of the runner.
"""
