"""Running jobs as chunks of matches: in this process, on local workers or a Dask cluster, with progress."""
