package adb

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseDevices(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Device
	}{
		{"empty", "", nil},
		{"short", "emulator-5554\tdevice\n127.0.0.1:5556\toffline\n", []Device{
			{Serial: "emulator-5554", State: "device"},
			{Serial: "127.0.0.1:5556", State: "offline"},
		}},
		{"short without final newline", "abc\tunauthorized", []Device{{Serial: "abc", State: "unauthorized"}}},
		{"long, from spec §2.4", "127.0.0.1:16001        device product:ddmsim model:DDM_Sim device:ddmsim transport_id:1\n", []Device{
			{Serial: "127.0.0.1:16001", State: "device", Properties: map[string]string{
				"product": "ddmsim", "model": "DDM_Sim", "device": "ddmsim", "transport_id": "1"}},
		}},
		{"long usb", "0123456789ABCDEF       device usb:1-1 product:x model:Pixel_3 device:blueline transport_id:12\n", []Device{
			{Serial: "0123456789ABCDEF", State: "device", Properties: map[string]string{
				"usb": "1-1", "product": "x", "model": "Pixel_3", "device": "blueline", "transport_id": "12"}},
		}},
		{"long serial beyond 22 columns", "adb-0123456789-abcdef._adb-tls-connect._tcp. offline transport_id:3\n", []Device{
			{Serial: "adb-0123456789-abcdef._adb-tls-connect._tcp.", State: "offline", Properties: map[string]string{"transport_id": "3"}},
		}},
		{"no permissions", "0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-2 transport_id:4\n", []Device{
			{Serial: "0123456789ABCDEF", State: "no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html]",
				Properties: map[string]string{"usb": "1-2", "transport_id": "4"}},
		}},
		{"state only, long", "emulator-5554          offline\n", []Device{
			{Serial: "emulator-5554", State: "offline", Properties: map[string]string{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDevices([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseDevicesErrors(t *testing.T) {
	for _, in := range []string{"\n", "abc\n", "\tdevice\n", "abc\t\n", "a\tdevice\n\n"} {
		if _, err := ParseDevices([]byte(in)); !errors.Is(err, ErrProtocol) {
			t.Errorf("%q: %v, want ErrProtocol", in, err)
		}
	}
}

func TestParseDevicesLong(t *testing.T) {
	// The goadb bug: lists beyond 255 bytes lost devices. 4000 devices is
	// 80000 bytes.
	devs, err := ParseDevices([]byte(deviceList(4000)))
	if err != nil || len(devs) != 4000 || devs[3999].Serial != "serial-03999" {
		t.Fatalf("got %d devices, %v", len(devs), err)
	}
}

func TestParsePIDs(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"", nil, true},
		{"4242\n4251\n", []int{4242, 4251}, true},
		{"9\n1\n9\n", []int{1, 9}, true},
		{"2147483647\n", []int{2147483647}, true},
		{"2147483648\n", nil, false},
		{"4242", nil, false},
		{"\n", nil, false},
		{"0\n", nil, false},
		{"-1\n", nil, false},
		{"+5\n", nil, false},
		{"05\n", nil, false},
		{"12 \n", nil, false},
		{"abc\n", nil, false},
	}
	for _, tt := range tests {
		got, err := ParsePIDs([]byte(tt.in))
		if tt.ok != (err == nil) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %v, %v", tt.in, got, err)
		}
		if err != nil && !errors.Is(err, ErrProtocol) {
			t.Errorf("%q: %v does not wrap ErrProtocol", tt.in, err)
		}
	}
}
