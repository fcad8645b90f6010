"""``EngramRetriever``: a LangChain retriever returning engram's memories as ``Document``s.

Each ``invoke(query)`` is a recall for ``user_id``: the ranked memories (``k`` of them, best
first; ``metadata["score"]`` set), then, with ``pinned`` (the default), the pinned facts and the
procedures engram always injects (``metadata["pinned"]`` True). ``page_content`` is the memory's
content, ``id`` its memory id; ``metadata`` holds ``kind``, ``version``, ``source_turn_ids`` and
``updated_at``. ``recall`` passes further recall options on (``kinds``, ``as_of``…). Give it an
``Engram`` for ``invoke`` (``ainvoke`` then runs it in a thread) or an ``AsyncEngram`` for ``ainvoke``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor

from .client import AsyncEngram, Engram
from .models import FactView, MemoryView, RecallResponse


class EngramRetriever(BaseRetriever):
    engram: Union[Engram, AsyncEngram]
    user_id: str
    k: int = 5
    pinned: bool = True
    recall: Dict[str, Any] = {}

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> List[Document]:
        if not isinstance(self.engram, Engram):
            raise TypeError("EngramRetriever.invoke needs a blocking Engram; with an AsyncEngram use ainvoke")
        return self._documents(self.engram.recall(self.user_id, query, **self._options()))

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun) -> List[Document]:
        if isinstance(self.engram, Engram):
            return await run_in_executor(None, self._get_relevant_documents, query, run_manager=run_manager.get_sync())
        return self._documents(await self.engram.recall(self.user_id, query, **self._options()))

    def _options(self) -> Dict[str, Any]:
        return {"k": self.k, **self.recall}

    def _documents(self, recalled: RecallResponse) -> List[Document]:
        documents = [_document(memory, score=memory.score) for memory in recalled.memories]
        if self.pinned:
            ranked = {memory.id for memory in recalled.memories}
            documents += [_document(fact, pinned=True) for fact in [*recalled.facts, *recalled.procedures] if fact.id not in ranked]
        return documents


def _document(memory: Union[MemoryView, FactView], score: Optional[float] = None, pinned: bool = False) -> Document:
    metadata: Dict[str, Any] = {
        "kind": memory.kind,
        "version": memory.version,
        "source_turn_ids": list(memory.source_turn_ids),
        "updated_at": memory.updated_at.isoformat(),
        "pinned": pinned,
    }
    if score is not None:
        metadata["score"] = score
    return Document(id=memory.id, page_content=memory.content, metadata=metadata)
