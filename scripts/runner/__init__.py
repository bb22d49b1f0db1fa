# SPDX-License-Identifier: BSD-2-Clause
"""Runs the study on this host: experiments, host identity, sizing, runs, environment
capture, side benchmarks. Standard library only: the QEMU guest carries what it imports
(scripts/tests/test_layout.py); it reaches the analysis only through the analysis'
command line (scripts/analysis/jobs.py).
"""
