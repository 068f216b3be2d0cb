"""From blocks to written files: the one placer, the verifier, the writer, and what is said back.

- :mod:`~editblocks.pipeline.api`: :func:`apply_edits`, the front door for a reply in any form;
- :mod:`~editblocks.pipeline.placer`: :class:`BlockApplier`, the only code that puts a block
  into a file;
- :mod:`~editblocks.pipeline.verifier`: checks every placement, sharing no code with matching;
- :mod:`~editblocks.pipeline.writer`: writes an apply's files, all or nothing, with undo;
- :mod:`~editblocks.pipeline.stream`: applying a reply while it arrives;
- :mod:`~editblocks.pipeline.feedback`: the message for the model;
- :mod:`~editblocks.pipeline.conversion`: a reply rewritten in another format;
- :mod:`~editblocks.pipeline.diffs`: unified diffs of what changed.
"""
