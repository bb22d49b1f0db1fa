# SPDX-License-Identifier: BSD-2-Clause
"""The QEMU guest with real NUMA nodes (make vm-test, make vm-experiments).
"""
