# SPDX-License-Identifier: BSD-2-Clause
"""The definitions both the runner and the analysis read: standard library only.
"""
