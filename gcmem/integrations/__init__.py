"""Framework adapters: ``gcmem.integrations.langchain`` (extra ``[langchain]``) and
``gcmem.integrations.llamaindex`` (extra ``[llamaindex]``). Neither is imported here, so gcmem
itself never needs a framework installed."""
