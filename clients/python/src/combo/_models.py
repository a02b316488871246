"""The base of every model: fields the server adds later are kept, not refused."""

from __future__ import annotations

import pydantic


class BaseModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())
