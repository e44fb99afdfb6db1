"""The grant store: grants (each one refresh family), revocations, registered clients and the
single use of authorization codes, behind one small interface.

Rules:

1. The store holds no token: a grant is its ids, its account, client and tiers, and the
   generation of its current refresh token. The sevDesk token lives only in sealed tokens.
2. Every operation is a coroutine (the shared store on Redis needs the network) and atomic:
   of twenty tasks redeeming one code, exactly one claims it (O05). The memory and file stores
   never await inside an operation, so each runs whole on the event loop's thread; the Redis
   store (``redis_store``) makes each one command or one Lua script.
4. Every rule (a grant's end, what a refresh does by the generation found, a code's single
   use, the cap of clients) is stated once, in :mod:`~sevdesk_mcp.http.oauth.grant_table`;
   :class:`Grants` takes the decisions over a :class:`GrantBackend` (memory, file, Redis) that
   only fetches and stores atomically, handed the table's row where Redis compares inside a
   script.
3. :class:`FileGrantStore` writes the whole state after every change to one file in the state
   directory (a temporary file, ``fsync``, then an atomic rename; mode 0600) and holds a lock on
   the directory, so a second process cannot share it by mistake. Several instances share
   :class:`~sevdesk_mcp.http.oauth.redis_store.RedisGrantStore` instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final, Protocol

import msgspec

from sevdesk_mcp.errors import StartupError
from sevdesk_mcp.http.oauth import grant_table as table
from sevdesk_mcp.http.oauth.grant_table import Claim, Generation, Rotate

STATE_FILE: Final = "oauth-state.json"
LOCK_FILE: Final = ".lock"
MAX_CLIENTS: Final = 10_000


class Grant(msgspec.Struct, frozen=True, kw_only=True):
    """One user's consent for one client: the family of its refresh tokens.

    :param id: the grant id (printed by ``grants list``, accepted by ``grants revoke``).
    :param account: the sevDesk account id (``GET /SevClient``).
    :param client_host: the host of a metadata-document client id, for the allowlist.
    :param generation: the generation of the one refresh token that may still be used.
    :param expires: when the grant ends (the refresh lifetime, renewed by each refresh).
    """

    id: str
    account: str
    account_name: str
    client_id: str
    client_name: str
    client_host: str | None
    tiers: tuple[str, ...]
    created: int
    expires: int
    generation: int = 0


class RegisteredClient(msgspec.Struct, frozen=True, kw_only=True):
    """A client registered dynamically (RFC 7591)."""

    client_id: str
    client_name: str
    redirect_uris: tuple[str, ...]
    created: int


class CodeUse(msgspec.Struct, kw_only=True):
    """A redeemed code: until it would have expired, and the grant it created."""

    expires: int
    grant: str | None = None


class State(msgspec.Struct, kw_only=True):
    """Everything the store holds."""

    grants: dict[str, Grant] = msgspec.field(default_factory=dict)
    clients: dict[str, RegisteredClient] = msgspec.field(default_factory=dict)
    codes: dict[str, CodeUse] = msgspec.field(default_factory=dict)
    revocations: dict[str, int] = msgspec.field(default_factory=dict)


class GrantStore(Protocol):
    """Where grants, refresh families, revocations, clients and code uses are kept.

    Every method may raise :class:`~sevdesk_mcp.errors.StateUnavailableError` when the store is
    shared and cannot be reached (Redis); the memory and file stores never do.
    """

    async def grant(self, grant_id: str) -> Grant | None:
        """:returns: the grant, or ``None`` if it never existed, expired or was revoked.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def grants(self) -> list[Grant]:
        """:returns: every live grant, oldest first.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def add_grant(self, grant: Grant) -> None:
        """Store a new grant (kept until ``grant.expires``).

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def rotate(self, grant_id: str, generation: int, expires: int) -> Grant | None:
        """Move the family to ``generation + 1`` if ``generation`` is its current one.

        :returns: the updated grant; ``None`` if the grant is gone, or if ``generation`` was
            used already, in which case the whole family is revoked (replay, O10).
        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def revoke(self, grant_id: str) -> bool:
        """Revoke a grant and every token of its family.

        :returns: whether it existed.
        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def client(self, client_id: str) -> RegisteredClient | None:
        """:returns: a registered client, or ``None``.

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def add_client(self, client: RegisteredClient) -> None:
        """Store a registered client (the oldest is dropped beyond :data:`MAX_CLIENTS`).

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def claim_code(self, code_id: str, expires: int) -> tuple[bool, str | None]:
        """Claim a code's single use (remembered until ``expires``).

        :returns: ``(True, None)`` for the first claim; ``(False, grant)`` for every later one,
            with the grant the first redemption created (to revoke it, RFC 6749 4.1.2).
        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def link_code(self, code_id: str, grant_id: str) -> None:
        """Record the grant a claimed code created (nothing if the code was never claimed).

        :raises StateUnavailableError: if a shared store cannot be reached.
        """
        ...

    async def aclose(self) -> None:
        """Let go of what the store holds (the file store's directory lock); idempotent."""
        ...


class GrantBackend(Protocol):
    """Where grants, codes, clients and revocations are kept; it decides nothing (every rule
    comes from :mod:`~sevdesk_mcp.http.oauth.grant_table`). Each method is atomic and may raise
    :class:`~sevdesk_mcp.errors.StateUnavailableError` (Redis)."""

    async def get(self, grant_id: str) -> Grant | None:
        """:returns: the stored grant (whether it is live is the store's judgement)."""
        ...

    async def listed(self) -> list[Grant]:
        """:returns: the stored grants (ended ones may be among them)."""
        ...

    async def put(self, grant: Grant) -> None:
        """Store ``grant`` (kept at least until it ends)."""
        ...

    async def swap(self, rotated: Grant, generation: int, revokes: str) -> Generation:
        """Compare the grant's generation with ``generation`` and, in the same atomic step,
        store ``rotated`` if it is current, or revoke the family if it is another and
        ``revokes`` is ``1`` (:func:`~sevdesk_mcp.http.oauth.grant_table.mismatch_revokes`).

        :returns: what the compare found.
        """
        ...

    async def delete(self, grant_id: str, at: int) -> bool:
        """Delete the grant and record its revocation at ``at``.

        :returns: whether it existed.
        """
        ...

    async def client(self, client_id: str) -> RegisteredClient | None:
        """:returns: the registered client, or ``None``."""
        ...

    async def add_client(self, client: RegisteredClient, cap: int) -> None:
        """Store ``client`` and drop the oldest beyond ``cap``
        (:func:`~sevdesk_mcp.http.oauth.grant_table.excess`), in one step."""
        ...

    async def claim(self, code_id: str, expires: int) -> tuple[Claim, str | None]:
        """Claim the code in one atomic step if it is unclaimed (remembered until
        ``expires``).

        :returns: what was found, and the grant linked to an earlier claim.
        """
        ...

    async def link(self, code_id: str, grant_id: str) -> None:
        """Record the grant a claimed code created (nothing if it was never claimed)."""
        ...

    async def aclose(self) -> None:
        """Let go of what the backend holds; idempotent."""
        ...


class Grants:
    """The one :class:`GrantStore`: every rule of
    :mod:`~sevdesk_mcp.http.oauth.grant_table` over a :class:`GrantBackend`.

    :param clock: seconds since the epoch (when grants end).
    :param max_clients: the cap of registered clients (tests lower it).
    """

    def __init__(
        self,
        backend: GrantBackend,
        clock: Callable[[], float] = time.time,
        *,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self._backend = backend
        self.now = clock
        self._max_clients = max_clients

    async def grant(self, grant_id: str) -> Grant | None:
        """See :meth:`GrantStore.grant`."""
        found = await self._backend.get(grant_id)
        return found if found is not None and table.live(found.expires, self.now()) else None

    async def grants(self) -> list[Grant]:
        """See :meth:`GrantStore.grants`."""
        now = self.now()
        listed = await self._backend.listed()
        live = (g for g in listed if table.live(g.expires, now))
        return sorted(live, key=lambda g: g.created)

    async def add_grant(self, grant: Grant) -> None:
        """See :meth:`GrantStore.add_grant`."""
        await self._backend.put(grant)

    async def rotate(self, grant_id: str, generation: int, expires: int) -> Grant | None:
        """See :meth:`GrantStore.rotate`."""
        current = await self.grant(grant_id)
        if current is None:  # the row of "absent": nothing changes
            return None
        rotated = msgspec.structs.replace(current, generation=generation + 1, expires=expires)
        found = await self._backend.swap(rotated, generation, table.mismatch_revokes())
        return rotated if table.rotation(found) is Rotate.ROTATE else None

    async def revoke(self, grant_id: str) -> bool:
        """See :meth:`GrantStore.revoke`."""
        return await self._backend.delete(grant_id, int(self.now()))

    async def client(self, client_id: str) -> RegisteredClient | None:
        """See :meth:`GrantStore.client`."""
        return await self._backend.client(client_id)

    async def add_client(self, client: RegisteredClient) -> None:
        """See :meth:`GrantStore.add_client`."""
        await self._backend.add_client(client, self._max_clients)

    async def claim_code(self, code_id: str, expires: int) -> tuple[bool, str | None]:
        """See :meth:`GrantStore.claim_code`."""
        found, linked = await self._backend.claim(code_id, expires)
        return (True, None) if table.claims(found) else (False, linked)

    async def link_code(self, code_id: str, grant_id: str) -> None:
        """See :meth:`GrantStore.link_code`."""
        await self._backend.link(code_id, grant_id)

    async def aclose(self) -> None:
        """See :meth:`GrantStore.aclose`."""
        await self._backend.aclose()


class MemoryGrants:
    """A :class:`GrantBackend` in memory (and the base of the file backend).

    No operation awaits, so each one runs whole on the event loop's thread (atomic).

    :param clock: seconds since the epoch (what is pruned, when revocations are recorded).
    """

    def __init__(self, state: State | None = None, clock: Callable[[], float] = time.time) -> None:
        self._state = state or State()
        self._now = clock

    async def get(self, grant_id: str) -> Grant | None:
        """See :meth:`GrantBackend.get`."""
        return self._state.grants.get(grant_id)

    async def listed(self) -> list[Grant]:
        """See :meth:`GrantBackend.listed`."""
        return list(self._state.grants.values())

    async def put(self, grant: Grant) -> None:
        """See :meth:`GrantBackend.put`."""
        self._state.grants[grant.id] = grant
        self._changed()

    async def swap(self, rotated: Grant, generation: int, revokes: str) -> Generation:
        """See :meth:`GrantBackend.swap`."""
        stored = self._state.grants.get(rotated.id)
        live = stored is not None and table.live(stored.expires, self._now())
        found = table.generation(stored.generation if live and stored else None, generation)
        if found == "current":
            self._state.grants[rotated.id] = rotated
            self._changed()
        elif found == "other" and revokes == "1":
            self._revoke(rotated.id, int(self._now()))
        return found

    async def delete(self, grant_id: str, at: int) -> bool:
        """See :meth:`GrantBackend.delete`."""
        return self._revoke(grant_id, at)

    async def client(self, client_id: str) -> RegisteredClient | None:
        """See :meth:`GrantBackend.client`."""
        return self._state.clients.get(client_id)

    async def add_client(self, client: RegisteredClient, cap: int) -> None:
        """See :meth:`GrantBackend.add_client`."""
        clients = self._state.clients
        clients[client.client_id] = client  # an id registered again keeps its place
        for oldest in list(clients)[: table.excess(len(clients), cap)]:
            del clients[oldest]
        self._changed()

    async def claim(self, code_id: str, expires: int) -> tuple[Claim, str | None]:
        """See :meth:`GrantBackend.claim`."""
        used = self._state.codes.get(code_id)
        if used is not None:
            return "claimed", used.grant
        self._prune()
        self._state.codes[code_id] = CodeUse(expires=expires)
        self._changed()
        return "unclaimed", None

    async def link(self, code_id: str, grant_id: str) -> None:
        """See :meth:`GrantBackend.link`."""
        use = self._state.codes.get(code_id)
        if use is not None:
            use.grant = grant_id
            self._changed()

    def _revoke(self, grant_id: str, at: int) -> bool:
        existed = self._state.grants.pop(grant_id, None) is not None
        self._state.revocations[grant_id] = at
        self._changed()
        return existed

    def _prune(self) -> None:
        now = int(self._now())
        state = self._state
        state.codes = {k: v for k, v in state.codes.items() if table.code_kept(v.expires, now)}
        state.grants = {k: v for k, v in state.grants.items() if table.live(v.expires, now)}
        kept = state.revocations.items()
        state.revocations = {k: v for k, v in kept if table.revocation_kept(v, now)}

    def _changed(self) -> None:
        """Called after every change (the file backend writes)."""

    async def aclose(self) -> None:
        """Nothing to let go of in memory."""


class MemoryGrantStore(Grants):
    """A :class:`GrantStore` in memory (tests, ``grants list`` of a state file).

    :param clock: seconds since the epoch.
    :param max_clients: the cap of registered clients (tests lower it).
    """

    def __init__(
        self,
        state: State | None = None,
        clock: Callable[[], float] = time.time,
        *,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        super().__init__(MemoryGrants(state, clock), clock, max_clients=max_clients)


class FileGrants(MemoryGrants):
    """A :class:`GrantBackend` in one file of ``directory``, which it locks while open.

    :raises StartupError: if the directory cannot be used, is locked by another process, or
        its state file is unreadable.
    """

    def __init__(self, directory: Path, clock: Callable[[], float] = time.time) -> None:
        self._dir = directory
        self._lock = _lock(directory)
        try:
            super().__init__(_load(directory / STATE_FILE), clock)
        except StartupError:
            self.release()
            raise

    def _changed(self) -> None:
        path = self._dir / STATE_FILE
        temporary = path.with_suffix(".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(msgspec.json.encode(self._state))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)

    def release(self) -> None:
        """Release the directory's lock (synchronous: for paths with no event loop)."""
        with contextlib.suppress(OSError):
            self._lock.close()

    async def aclose(self) -> None:
        """Release the directory's lock."""
        self.release()


class FileGrantStore(Grants):
    """A :class:`GrantStore` in one file of ``directory``, which it locks while open.

    :param clock: seconds since the epoch.
    :param max_clients: the cap of registered clients (tests lower it).
    :raises StartupError: if the directory cannot be used, is locked by another process, or
        its state file is unreadable.
    """

    def __init__(
        self,
        directory: Path,
        clock: Callable[[], float] = time.time,
        *,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self._file = FileGrants(directory, clock)
        super().__init__(self._file, clock, max_clients=max_clients)

    def release(self) -> None:
        """Release the directory's lock (synchronous: for paths with no event loop)."""
        self._file.release()


def read_state(path: Path) -> State:
    """:returns: the state in ``path`` (an empty state if there is none), without locking.

    :raises StartupError: if it cannot be read or is damaged.
    """
    return _load(path)


def _load(path: Path) -> State:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return State()
    except OSError as exc:
        raise StartupError(f"cannot read the OAuth state in {path} ({exc.strerror})") from None
    try:
        return msgspec.json.decode(data, type=State)
    except (msgspec.ValidationError, msgspec.DecodeError):
        raise StartupError(
            f"the OAuth state in {path} is damaged; move it away to start with no grants "
            "(every client then asks for consent again)"
        ) from None


def _lock(directory: Path) -> IO[bytes]:
    """:returns: the open lock file, locked exclusively until it is closed.

    :raises StartupError: if the directory is not usable or another process holds the lock.
    """
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle = (directory / LOCK_FILE).open("ab")
    except PermissionError as exc:
        raise StartupError(_not_writable(directory, exc)) from None
    except OSError as exc:
        raise StartupError(
            f"SEVDESK_HTTP_STATE_DIR: cannot use {directory} ({exc.strerror}); "
            "point it to a writable folder of its own"
        ) from None
    if not _try_lock(handle):
        handle.close()
        raise StartupError(
            f"SEVDESK_HTTP_STATE_DIR: {directory} is in use by another server process; give "
            "each process a folder of its own (one instance per state directory)"
        )
    return handle


def _not_writable(directory: Path, exc: PermissionError) -> str:
    """:returns: the refusal for a state directory this process may not write (I35-8b): the
    folder, its owner and mode, the user this process runs as, and the fix for each kind of
    platform (a volume that platforms such as Railway mount for root only, a host folder,
    Kubernetes).
    """
    refusal = f"SEVDESK_HTTP_STATE_DIR: cannot write to {directory} ({exc.strerror})"
    if sys.platform == "win32":  # pragma: no cover - no owner ids on Windows
        return f"{refusal}; point it to a folder this user may write"
    owner = f"{directory} cannot be examined"
    for path in (directory, *directory.parents):  # the folder, or the nearest that exists
        try:
            info = path.stat()
        except FileNotFoundError:
            continue
        except OSError as error:
            owner = f"{path} cannot be examined ({error.strerror}: a folder above it is closed)"
            break
        what = "it" if path == directory else f"its parent {path}"
        mode = info.st_mode & 0o7777
        owner = f"{what} belongs to uid {info.st_uid} (gid {info.st_gid}, mode {mode:04o})"
        break
    uid, gid = os.geteuid(), os.getegid()
    return (
        f"{refusal}: {owner}, and this server runs as uid {uid} (gid {gid}). Fix: give the "
        f"folder to uid {uid} (a host folder: chown {uid}:{gid} on it; Kubernetes: "
        f"securityContext.fsGroup: {gid}); where the platform mounts volumes for root only, "
        "run the container as root on purpose (Railway: set the variable RAILWAY_RUN_UID=0); "
        "or keep the state in Redis with SEVDESK_HTTP_STATE_URL, which needs no folder "
        "(docs/remote.md, 'The state directory and its owner')"
    )


def _try_lock(handle: IO[bytes]) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt  # noqa: PLC0415

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl  # noqa: PLC0415

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
