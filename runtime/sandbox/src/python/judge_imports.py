# The Judge phase's import rule (runtime/sandbox/src/python/judge_imports.rs), run by the interpreter
# before anything else, with SEALED: (absolute path, sha256 hex) pairs of the grader's .py
# files the seal placed, and STDLIB: the read-only standard library's folder. Every folder an
# agent could have written (all of the filesystem but STDLIB) yields only those files,
# compiled from their sealed source; no bytecode cache is ever read or written.
import sys
import _frozen_importlib as _bs
import _frozen_importlib_external as _bx
import os
import zipimport

SEALED = dict(SEALED)
# The folders on the way to a sealed file: namespace packages of the grader's own.
DIRS = set()
for _path in SEALED:
    _dir = os.path.dirname(_path)
    while _dir not in DIRS and _dir != '/':
        DIRS.add(_dir)
        _dir = os.path.dirname(_dir)

# No cache tag: no loader derives a __pycache__ path, so none reads or writes one (an agent's
# unchecked-hash .pyc beside a sealed file is never looked at).
sys.implementation.cache_tag = None
sys.dont_write_bytecode = True
sys.pycache_prefix = None


def _sha256(data):
    import _sha2
    return _sha2.sha256(data).hexdigest()


class SealedLoader(_bx.SourceFileLoader):
    """A sealed grader file, compiled from its source if it still holds the sealed bytes."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        data = self.get_data(path)
        if _sha256(data) != SEALED.get(path):
            raise ImportError(
                f'{path} is not the grader file the judge sealed (it changed after the seal)',
                name=fullname, path=path)
        return self.source_to_code(data, path)


class SealedFinder:
    """Modules of one folder outside the standard library: its sealed grader files only."""

    def __init__(self, path):
        self.path = path

    def invalidate_caches(self):
        pass

    def find_spec(self, fullname, target=None):
        base = self.path.rstrip('/') + '/' + fullname.rpartition('.')[2]
        init = base + '/__init__.py'
        if init in SEALED:
            return _bx.spec_from_file_location(
                fullname, init, loader=SealedLoader(fullname, init),
                submodule_search_locations=[base])
        module = base + '.py'
        if module in SEALED:
            return _bx.spec_from_file_location(
                fullname, module, loader=SealedLoader(fullname, module))
        if base in DIRS:
            spec = _bs.ModuleSpec(fullname, None)
            spec.submodule_search_locations = [base]
            return spec
        return None


def path_hook(entry):
    path = os.path.normpath(os.path.join(os.getcwd(), entry))
    if path == STDLIB or path.startswith(STDLIB + '/'):
        raise ImportError('the standard library: its own finders', path=entry)
    if not os.path.isdir(path):
        # As CPython's own hooks: a file is no importer (`python3 script.py` runs it), unless
        # it is a zip archive, which could hold the agent's modules: nothing in it imports.
        try:
            zipimport.zipimporter(path)
        except ImportError:
            raise ImportError('not a folder', path=entry) from None
    return SealedFinder(path)


sys.path_hooks.insert(0, path_hook)
sys.path_importer_cache.clear()
