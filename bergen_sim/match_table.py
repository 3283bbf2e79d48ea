"""Per-match result rows: from kernel arrays to a DataFrame, and to Parquet.

Parquet files are written in row groups as chunks arrive (memory stays flat
however many matches run) into a temporary file that replaces the target only
when the run completes, so a failed or interrupted run never leaves a
half-written file.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from bergen_sim.engine import layout as L


def match_frame(rows: np.ndarray, sides: int) -> pd.DataFrame:
    """Kernel match rows (layout ``M_*``) as a DataFrame with named columns."""
    return pd.DataFrame(L.MATCH_ROW.columns(rows, widths={"score": sides}))


class ParquetSink:
    """Streams DataFrames into one Parquet file, atomically on success.

    >>> import tempfile, pandas as pd
    >>> path = Path(tempfile.mkdtemp()) / "m.parquet"
    >>> with ParquetSink(path) as sink:
    ...     sink.write(pd.DataFrame({"a": [1, 2]}))
    >>> pd.read_parquet(path)["a"].tolist()
    [1, 2]
    """

    def __init__(self, path: str | os.PathLike, metadata: dict[str, str] | None = None):
        self.path = Path(path)
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.partial")
        self.metadata = metadata or {}
        self._writer: pq.ParquetWriter | None = None

    def write(self, frame: pd.DataFrame) -> None:
        """Append one row group."""
        table = pa.Table.from_pandas(frame, preserve_index=False)
        if self._writer is None:
            schema = table.schema.with_metadata({k.encode(): v.encode() for k, v in self.metadata.items()})
            self._writer = pq.ParquetWriter(self.tmp, schema)
        self._writer.write_table(table.cast(self._writer.schema))

    def __enter__(self) -> "ParquetSink":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._writer is not None:
            self._writer.close()
        if exc_type is None and self._writer is not None:
            os.replace(self.tmp, self.path)
        else:
            self.tmp.unlink(missing_ok=True)
