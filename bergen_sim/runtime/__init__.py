"""The runtime: policy names to compiled functions, and the compiled kernel for a set of policies.

:mod:`.registry` resolves what users type (``expert``, ``pimc:worlds=64``,
``package.module:function``); :mod:`.kernel_build` generates and loads the
kernel module whose dispatcher calls those policies; :mod:`.runner` is the
:class:`~bergen_sim.runtime.runner.Engine` that calls it and turns its error
slots into exceptions.  Services (simulate, compare, reports) use only this.
"""
