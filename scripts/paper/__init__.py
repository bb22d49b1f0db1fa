# SPDX-License-Identifier: BSD-2-Clause
"""The paper's generated inputs (make paper): numbers, sentences, model-checking facts.
"""
