"""Per-match result rows: from kernel arrays to a DataFrame, and to a Parquet or CSV file.

Files are written in row groups (Parquet) or appended rows (CSV) as chunks
arrive, so memory stays flat however many matches run, through
:func:`bergen_sim.services.files.output.open_output`: a regular file is written beside the
target and replaces it only when the run completes (a failed or interrupted
run never leaves a half-written file), a device or pipe is written in place,
``-`` is standard output (CSV).
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

import numpy as np

from bergen_sim.engine import layout as L
from bergen_sim.services.files.output import OutputFile, check_file, open_output

if TYPE_CHECKING:  # imported where rows are made or written: a summary run never needs them (start-up time)
    import pandas as pd
    import pyarrow.parquet as pq

#: file types of per-match rows (``simulate --out``); ``-`` writes CSV to standard output
ROW_FORMATS = (".parquet", ".csv")


def match_frame(rows: np.ndarray, sides: int) -> pd.DataFrame:
    """Kernel match rows (layout ``M_*``) as a DataFrame with named columns."""
    import pandas as pd

    return pd.DataFrame(L.MATCH_ROW.columns(rows, widths={"score": sides}))


def check_rows_path(path: str | os.PathLike) -> OutputFile:
    """Check a ``simulate --out`` path before the run (.parquet, .csv or - for CSV on standard output)."""
    return check_file(path, "--out", ROW_FORMATS, stdout=True)


class _Abort(Exception):
    """Thrown into the output's context to discard what was written."""


class FrameSink:
    """Streams DataFrames into one Parquet or CSV output (see :func:`bergen_sim.services.files.output.open_output`).

    ``close()`` completes the file; ``abort()`` leaves nothing behind.  A write
    failure raises :class:`bergen_sim.services.files.output.OutputError` and discards the file.

    >>> import tempfile, pandas as pd
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "m.parquet"
    >>> with FrameSink(check_rows_path(path)) as sink:
    ...     sink.write(pd.DataFrame({"a": [1, 2]}))
    >>> pd.read_parquet(path)["a"].tolist()
    [1, 2]
    """

    def __init__(self, target: OutputFile | str | os.PathLike, metadata: dict[str, str] | None = None):
        self.target = target if isinstance(target, OutputFile) else check_rows_path(target)
        self.csv = self.target.suffix != ".parquet"
        self.metadata = metadata or {}
        self._stack = contextlib.ExitStack()
        self._handle = self._stack.enter_context(open_output(self.target, binary=True))
        self._writer: pq.ParquetWriter | None = None
        self._rows = 0

    def write(self, frame: pd.DataFrame) -> None:
        """Append rows (one Parquet row group)."""
        try:
            if self.csv:
                self._handle.write(frame.to_csv(index=False, header=self._rows == 0).encode())
            else:
                import pyarrow as pa
                import pyarrow.parquet as pq

                table = pa.Table.from_pandas(frame, preserve_index=False)
                if self._writer is None:
                    schema = table.schema.with_metadata({k.encode(): v.encode() for k, v in self.metadata.items()})
                    self._writer = pq.ParquetWriter(self._handle, schema)
                self._writer.write_table(table.cast(self._writer.schema))
        except OSError as exc:
            self.abort()
            raise self.target.fail(f"write failed ({exc.strerror or exc}); nothing was written") from None
        self._rows += len(frame)

    def close(self) -> None:
        """Complete the output (OutputError if that fails)."""
        try:
            if self._writer is not None:
                self._writer.close()
        except OSError as exc:
            self.abort()
            raise self.target.fail(f"write failed ({exc.strerror or exc}); nothing was written") from None
        self._stack.close()

    def abort(self) -> None:
        """Discard the output (a regular file is left as it was)."""
        with contextlib.suppress(Exception):
            if self._writer is not None:
                self._writer.close()
        self._writer = None
        with contextlib.suppress(_Abort, OSError):
            self._stack.__exit__(_Abort, _Abort(), None)

    def __enter__(self) -> FrameSink:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()
