# SPDX-License-Identifier: BSD-2-Clause
"""The study's figures from the analysis (make plots): one module per figure and the
two renderers, matplotlib and gnuplot.
"""
