#!/bin/sh
# Once the server answers: creates the namespace the service uses and registers the custom search
# attributes every workflow carries (SEARCH_ATTRIBUTES, all Keyword). Only what is missing is
# created, and a failure stops the deployment (the API and the worker wait for this to succeed).
set -eu
: "${TEMPORAL_ADDRESS:?}" "${NAMESPACE:?}" "${SEARCH_ATTRIBUTES:?}" "${RETENTION:=7d}"

# retry <what> <command...>: the server and a new namespace take a few seconds to be usable.
retry() {
  what=$1; shift
  attempt=1
  until "$@"; do
    [ "$attempt" -lt "${ATTEMPTS:-30}" ] || { echo "gave up: $what" >&2; exit 1; }
    attempt=$((attempt + 1)); sleep 2
  done
}

retry "Temporal at $TEMPORAL_ADDRESS is not healthy" temporal operator cluster health --address "$TEMPORAL_ADDRESS"
if temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "namespace $NAMESPACE exists"
else
  temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --retention "$RETENTION"
fi

registered() {
  temporal operator search-attribute list --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" >/tmp/search-attributes
}
retry "the search attributes of $NAMESPACE cannot be listed" registered
for name in $SEARCH_ATTRIBUTES; do
  if grep -qw "$name" /tmp/search-attributes; then
    echo "search attribute $name exists"
  else
    retry "search attribute $name was not created" \
      temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name "$name" --type Keyword
  fi
done
echo "Temporal namespace $NAMESPACE ready"
