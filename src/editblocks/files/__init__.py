"""Files under a root: reading and writing them safely, and nothing of edit blocks or matching.

- :mod:`~editblocks.files.workspace`: paths resolved under the root through directory
  descriptors, atomic writes, owners and modes, limits;
- :mod:`~editblocks.files.textfile`: encodings, byte order marks and line endings, kept as found;
- :mod:`~editblocks.files.journal`: the undo journal and the recovery of an interrupted apply;
- :mod:`~editblocks.files.lock`: one apply at a time under a root;
- :mod:`~editblocks.files.drift`: files that changed since the model saw them.
"""
