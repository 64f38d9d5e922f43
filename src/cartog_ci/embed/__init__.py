"""Embedding models: the protocol, the local ONNX model and a test fake."""
