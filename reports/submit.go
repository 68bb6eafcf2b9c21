package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// writeSubmitHowTo writes reservations/SUBMIT.md and reservations/submit.sh
// beside the reservation requests. The requests carry no reservation-id,
// which only the ResourceManager hands out (one per request, through its
// new-reservation call) and which it refuses a submission without; the
// two files say how to take one and submit, and do it.
func writeSubmitHowTo(out string, reservations []IndexProfile) ([]string, error) {
	if len(reservations) == 0 {
		return nil, nil
	}
	var md strings.Builder
	md.WriteString(`# Submitting these reservations to YARN

Each JSON file here is the body of a ReservationSubmissionRequest of the
YARN ResourceManager's REST API, without its reservation-id: the
ResourceManager gives out ids and refuses a submission without one. Per file,
two calls (RM is the ResourceManager's web address, e.g. http://rm:8088):

    curl -s -X POST "$RM/ws/v1/cluster/reservation/new-reservation"
    # → {"reservation-id":"reservation_1404198295326_0003"}: put that id in
    #   the file as "reservation-id", then
    curl -s -X POST -H 'Content-Type: application/json' \
         -d @FILE.json "$RM/ws/v1/cluster/reservation/submit"

submit.sh does both for every file: sh submit.sh http://rm:8088
(wlprof export yarn-reservation --reservation-id ID prints one request with
its id.) The queue must be a reservable queue of the ResourceManager.

Files:
`)
	for _, r := range reservations {
		fmt.Fprintf(&md, "- %s (job %s)\n", filepath.Base(r.Path), r.Job)
	}
	sh := `#!/bin/sh
# Submit every reservation request in this directory to a YARN
# ResourceManager: take a reservation id from its new-reservation call, put
# it in the request and POST the request to its submit call.
# Usage: sh submit.sh http://rm:8088
set -eu
rm=${1:?usage: sh submit.sh http://RESOURCEMANAGER:PORT}
cd "$(dirname "$0")"
for f in *.json; do
	id=$(curl -sf -X POST "$rm/ws/v1/cluster/reservation/new-reservation" |
		sed -n 's/.*"reservation-id" *: *"\(reservation_[0-9]*_[0-9]*\)".*/\1/p')
	if [ -z "$id" ]; then
		echo "submit.sh: $f: no reservation id from $rm" >&2
		exit 1
	fi
	sed "1s/^{/{\"reservation-id\": \"$id\",/" "$f" |
		curl -sf -X POST -H 'Content-Type: application/json' --data-binary @- "$rm/ws/v1/cluster/reservation/submit"
	echo "$f: submitted as $id"
done
`
	dir := filepath.Join(out, "reservations")
	if err := writeFile(filepath.Join(dir, "SUBMIT.md"), []byte(md.String())); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "submit.sh"), []byte(sh), 0o755); err != nil {
		return nil, err
	}
	return []string{"reservations/SUBMIT.md", "reservations/submit.sh"}, nil
}
