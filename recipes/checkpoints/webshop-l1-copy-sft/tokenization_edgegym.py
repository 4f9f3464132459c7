"""edgegym's byte-level tokenizer: the folder's tokenizer.json as written."""

from transformers import PreTrainedTokenizerFast


class EdgegymTokenizer(PreTrainedTokenizerFast):
    """No normaliser, split pattern or token is added to tokenizer.json, whatever the model type."""
