"""Task understanding: free text -> TaskSpec (roles, targets, goal conditions), offline, or "not understood".

:class:`TaskReader` reads a request with the verbs' frames (:mod:`.frames`), the AI2-THOR type words
(:mod:`.vocabulary`), the nearest of COAT's annotated tasks (MiniLM), and a language check (:mod:`.language`);
its calibrated confidence decides between a spec and a refusal that lists the closest known tasks.
:func:`read_with_model` lets a generating model (the embedded ``local`` models, ``served:``, ``openai:``) read a
request into a TaskSpec instead, its reply decoded under a JSON schema (:mod:`.model_reader`).
"""

from __future__ import annotations

from .calibration import THRESHOLD, confidence, features
from .language import LanguageCheck, check_language
from .model_reader import read_structured, read_with_model
from .reader import TaskReader
from .vocabulary import Vocabulary

__all__ = ["THRESHOLD", "LanguageCheck", "TaskReader", "Vocabulary", "check_language", "confidence", "features",
           "read_structured", "read_with_model"]
