"""A question's onnxruntime session through onnxruntime's C API, by ctypes.

``import onnxruntime`` loads its Python extension, which imports numpy: ~120
CPU ms of a warm ``cartog-ci search`` process of ~300 (docs/search.md, "Warm
search latency"). The same pip package ships the runtime as a C library
(``onnxruntime/capi/libonnxruntime.so.<version>``, onnxruntime's own C API,
which its plugin execution providers load); loading it takes ~5 ms. A
question's session is made and run through it: the same file, the same
options (one thread, graph optimisation as asked), the same runtime version
from the same package, so the same kernels and the same output
(tests/embed/test_ort_capi.py compares it with the Python module's, bit for
bit). Where the library is not found (another platform, another layout) the
caller uses the Python module as before (``library`` returns None).

The C API is a table of function pointers (``OrtApi``, from
``OrtGetApiBase()->GetApi(version)``); onnxruntime only appends to it, so the
places below (onnxruntime_c_api.h, ``struct OrtApi``) hold in every release
since API version 1, which is the one asked for.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path

_API_VERSION = 1  # every member used below exists since version 1

# places in ``struct OrtApi`` (onnxruntime_c_api.h)
_GET_ERROR_MESSAGE = 2
_CREATE_ENV = 3
_CREATE_SESSION = 7
_RUN = 9
_CREATE_SESSION_OPTIONS = 10
_SET_GRAPH_OPTIMIZATION_LEVEL = 23
_SET_INTRA_OP_NUM_THREADS = 24
_SESSION_GET_INPUT_COUNT = 30
_SESSION_GET_OUTPUT_COUNT = 31
_SESSION_GET_INPUT_NAME = 36
_SESSION_GET_OUTPUT_NAME = 37
_CREATE_TENSOR_WITH_DATA_AS_ORT_VALUE = 49
_GET_TENSOR_MUTABLE_DATA = 51
_GET_TENSOR_ELEMENT_TYPE = 60
_GET_DIMENSIONS_COUNT = 61
_GET_DIMENSIONS = 62
_GET_TENSOR_TYPE_AND_SHAPE = 65
_CREATE_CPU_MEMORY_INFO = 69
_ALLOCATOR_FREE = 76
_GET_ALLOCATOR_WITH_DEFAULT_OPTIONS = 78
_RELEASE_ENV = 92
_RELEASE_STATUS = 93
_RELEASE_MEMORY_INFO = 94
_RELEASE_SESSION = 95
_RELEASE_VALUE = 96
_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO = 99
_RELEASE_SESSION_OPTIONS = 100

# enums of onnxruntime_c_api.h
_LOGGING_LEVEL_WARNING = 2  # the Python module's default severity
_ELEMENT_FLOAT = 1
_ELEMENT_INT64 = 7
_ARENA_ALLOCATOR = 1
_MEM_TYPE_DEFAULT = 0
GRAPH_LEVELS = {"none": 0, "basic": 1, "extended": 2, "all": 99}

_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_STATUS = ctypes.c_void_p  # OrtStatus*: NULL when the call succeeded


class OrtError(RuntimeError):
    """A call of the C API failed; the message is onnxruntime's."""


def library_path() -> Path | None:
    """The C library of the installed onnxruntime package, without importing
    the package (``find_spec`` reads no module of it); None on a platform or
    a layout without it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        spec = find_spec("onnxruntime")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location, "capi").glob("libonnxruntime.so.*"))
        if found:
            return found[-1]
    return None


class _Api:
    """The function table of one loaded library."""

    def __init__(self, path: Path) -> None:
        self.lib = ctypes.CDLL(str(path))
        get_base = self.lib.OrtGetApiBase
        get_base.restype = _P
        get_base.argtypes = []
        base = ctypes.cast(get_base(), _PP)
        get_api = ctypes.CFUNCTYPE(_P, ctypes.c_uint32)(base[0])
        table = get_api(_API_VERSION)
        if not table:
            raise OrtError(f"{path.name} does not give API version {_API_VERSION}")
        self.table = ctypes.cast(table, _PP)
        self.version = ctypes.CFUNCTYPE(ctypes.c_char_p)(base[1])().decode()
        self._error_message = self._fn(_GET_ERROR_MESSAGE, ctypes.c_char_p, _P)
        self._release_status = self._fn(_RELEASE_STATUS, None, _P)

    def _fn(self, place: int, restype: object, *argtypes: object) -> ctypes._CFuncPtr:  # type: ignore[name-defined]
        return ctypes.CFUNCTYPE(restype, *argtypes)(self.table[place])  # type: ignore[arg-type]

    def call(self, place: int, *args: object) -> None:
        """Call a function that returns an OrtStatus*; raise its message."""
        fn = ctypes.CFUNCTYPE(_STATUS, *(type(a) if isinstance(a, ctypes._SimpleCData) else _P for a in args))(
            self.table[place]
        )
        status = fn(*args)
        if status:
            message = (self._error_message(status) or b"").decode("utf-8", "replace")
            self._release_status(status)
            raise OrtError(message)

    def release(self, place: int, handle: ctypes.c_void_p) -> None:
        if handle:
            self._fn(place, None, _P)(handle)


_APIS: dict[Path, tuple[_Api, ctypes.c_void_p]] = {}
_LOCK = threading.Lock()


def _api(path: Path) -> tuple[_Api, ctypes.c_void_p]:
    """The library's table and one environment per process (as the Python
    module keeps one): onnxruntime allows a single environment."""
    with _LOCK:
        known = _APIS.get(path)
        if known is None:
            api = _Api(path)
            env = ctypes.c_void_p()
            api.call(
                _CREATE_ENV, ctypes.c_int(_LOGGING_LEVEL_WARNING), ctypes.c_char_p(b"cartog-ci"), ctypes.byref(env)
            )
            known = _APIS[path] = (api, env)
        return known


class Session:
    """An onnxruntime session on one thread, asked one row of token ids at
    a time; its output is the named float tensor, as bytes and shape."""

    def __init__(self, library: Path, model: Path, *, graph_level: str = "none") -> None:
        self._api, env = _api(library)
        api = self._api
        options = ctypes.c_void_p()
        api.call(_CREATE_SESSION_OPTIONS, ctypes.byref(options))
        try:
            api.call(_SET_INTRA_OP_NUM_THREADS, options, ctypes.c_int(1))
            api.call(_SET_GRAPH_OPTIMIZATION_LEVEL, options, ctypes.c_int(GRAPH_LEVELS[graph_level]))
            self._session = ctypes.c_void_p()
            api.call(_CREATE_SESSION, env, ctypes.c_char_p(str(model).encode()), options, ctypes.byref(self._session))
        finally:
            api.release(_RELEASE_SESSION_OPTIONS, options)
        self._memory = ctypes.c_void_p()
        api.call(
            _CREATE_CPU_MEMORY_INFO, ctypes.c_int(_ARENA_ALLOCATOR), ctypes.c_int(_MEM_TYPE_DEFAULT),
            ctypes.byref(self._memory),
        )  # fmt: skip
        self.inputs = self._names(_SESSION_GET_INPUT_COUNT, _SESSION_GET_INPUT_NAME)
        self.outputs = self._names(_SESSION_GET_OUTPUT_COUNT, _SESSION_GET_OUTPUT_NAME)

    def _names(self, count_place: int, name_place: int) -> tuple[str, ...]:
        api = self._api
        allocator = ctypes.c_void_p()
        api.call(_GET_ALLOCATOR_WITH_DEFAULT_OPTIONS, ctypes.byref(allocator))
        count = ctypes.c_size_t()
        api.call(count_place, self._session, ctypes.byref(count))
        names = []
        for i in range(count.value):
            name = ctypes.c_char_p()
            api.call(name_place, self._session, ctypes.c_size_t(i), allocator, ctypes.byref(name))
            names.append((name.value or b"").decode())
            api.call(_ALLOCATOR_FREE, allocator, ctypes.cast(name, _P))
        return tuple(names)

    def run(self, ids: Sequence[int], output: str) -> tuple[bytes, tuple[int, ...]]:
        """One row: ``input_ids`` the ids, ``attention_mask`` ones,
        ``token_type_ids`` zeros (those of them the graph takes); the
        output's float32 bytes (native order) and shape."""
        api = self._api
        n = len(ids)
        data = {
            "input_ids": (ctypes.c_int64 * n)(*ids),
            "attention_mask": (ctypes.c_int64 * n)(*([1] * n)),
            "token_type_ids": (ctypes.c_int64 * n)(),
        }
        names = [name for name in self.inputs if name in data]
        shape = (ctypes.c_int64 * 2)(1, n)
        values = (ctypes.c_void_p * len(names))()
        result = (ctypes.c_void_p * 1)()
        try:
            for i, name in enumerate(names):
                buffer = data[name]
                value = ctypes.c_void_p()
                api.call(
                    _CREATE_TENSOR_WITH_DATA_AS_ORT_VALUE, self._memory, ctypes.cast(buffer, _P),
                    ctypes.c_size_t(ctypes.sizeof(buffer)), ctypes.cast(shape, _P), ctypes.c_size_t(2),
                    ctypes.c_int(_ELEMENT_INT64), ctypes.byref(value),
                )  # fmt: skip
                values[i] = value.value
            in_names = (ctypes.c_char_p * len(names))(*(name.encode() for name in names))
            out_names = (ctypes.c_char_p * 1)(output.encode())
            api.call(
                _RUN, self._session, ctypes.c_void_p(), ctypes.cast(in_names, _P), ctypes.cast(values, _P),
                ctypes.c_size_t(len(names)), ctypes.cast(out_names, _P), ctypes.c_size_t(1), ctypes.cast(result, _P),
            )  # fmt: skip
            return self._float_tensor(ctypes.c_void_p(result[0]))
        finally:
            for handle in values:
                api.release(_RELEASE_VALUE, ctypes.c_void_p(handle))
            api.release(_RELEASE_VALUE, ctypes.c_void_p(result[0]))

    def _float_tensor(self, value: ctypes.c_void_p) -> tuple[bytes, tuple[int, ...]]:
        api = self._api
        info = ctypes.c_void_p()
        api.call(_GET_TENSOR_TYPE_AND_SHAPE, value, ctypes.byref(info))
        try:
            element = ctypes.c_int()
            api.call(_GET_TENSOR_ELEMENT_TYPE, info, ctypes.byref(element))
            if element.value != _ELEMENT_FLOAT:
                raise OrtError(f"the output is of element type {element.value}, not float")
            count = ctypes.c_size_t()
            api.call(_GET_DIMENSIONS_COUNT, info, ctypes.byref(count))
            dims = (ctypes.c_int64 * count.value)()
            api.call(_GET_DIMENSIONS, info, ctypes.cast(dims, _P), count)
        finally:
            api.release(_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO, info)
        shape = tuple(int(d) for d in dims)
        size = 1
        for d in shape:
            size *= d
        data = ctypes.c_void_p()
        api.call(_GET_TENSOR_MUTABLE_DATA, value, ctypes.byref(data))
        return ctypes.string_at(data, 4 * size), shape

    def close(self) -> None:
        self._api.release(_RELEASE_MEMORY_INFO, self._memory)
        self._api.release(_RELEASE_SESSION, self._session)
        self._memory = self._session = ctypes.c_void_p()
