package lip

import (
	"encoding/json"
	"fmt"
)

// Built-in component types every shell provides (seed §3.4). An unknown
// type falls back to note with the raw props shown.
const (
	ComponentNote      = "note"
	ComponentOptions   = "options"
	ComponentSlider    = "slider"
	ComponentToggle    = "toggle"
	ComponentForm      = "form"
	ComponentImageDrop = "image-drop"
	ComponentProgress  = "progress"
	ComponentCode      = "code"
)

// BuiltinComponents lists the eight built-in component types.
func BuiltinComponents() []string {
	return []string{ComponentNote, ComponentOptions, ComponentSlider, ComponentToggle,
		ComponentForm, ComponentImageDrop, ComponentProgress, ComponentCode}
}

// IsBuiltinComponent reports whether t is one of the eight built-ins.
func IsBuiltinComponent(t string) bool { return contains(BuiltinComponents(), t) }

// Props is the props of one built-in component type.
type Props interface {
	ComponentType() string
}

// NewComponent builds component.create data for a built-in component.
// slot may be empty (the shell's default, dock); at is used with slot float.
func NewComponent(id string, p Props, slot string, at *Point) (ComponentCreate, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return ComponentCreate{}, fmt.Errorf("encode %s props: %w", p.ComponentType(), err)
	}
	return ComponentCreate{ID: id, Type: p.ComponentType(), Props: raw, Slot: slot, At: at}, nil
}

// UpdateComponent builds component.update data (props merged by the shell).
func UpdateComponent(id string, p Props) (ComponentUpdate, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return ComponentUpdate{}, fmt.Errorf("encode %s props: %w", p.ComponentType(), err)
	}
	return ComponentUpdate{ID: id, Props: raw}, nil
}

// NoteProps: a card of text. Actions: dismiss.
type NoteProps struct {
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
	Tone  string `json:"tone,omitempty"` // info, ok, warn, error
}

// Option is one choice of an options component.
type Option struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Hint  string `json:"hint,omitempty"`
}

// OptionsProps: a list of choices. Actions: select (value: the id, or the
// ids when Multi), dismiss.
type OptionsProps struct {
	Label    string   `json:"label,omitempty"`
	Items    []Option `json:"items"`
	Multi    bool     `json:"multi,omitempty"`
	Selected []string `json:"selected,omitempty"`
}

// SliderProps: a number in [Min, Max]. Actions: change (live, coalesced),
// commit (release); value is the number.
type SliderProps struct {
	Label string   `json:"label,omitempty"`
	Min   float64  `json:"min"`
	Max   float64  `json:"max"`
	Step  float64  `json:"step,omitempty"`
	Value *float64 `json:"value,omitempty"`
	Unit  string   `json:"unit,omitempty"`
}

// ToggleProps: an on/off switch. Actions: change; value is the boolean.
type ToggleProps struct {
	Label string `json:"label"`
	Value bool   `json:"value"`
}

// Form field kinds.
const (
	FieldText     = "text"
	FieldTextarea = "textarea"
	FieldNumber   = "number"
	FieldSelect   = "select"
	FieldCheckbox = "checkbox"
)

// FieldChoice is one choice of a select field.
type FieldChoice struct {
	Value string `json:"value"`
	Label string `json:"label,omitempty"`
}

// FormField is one field of a form.
type FormField struct {
	Name        string        `json:"name"`
	Label       string        `json:"label,omitempty"`
	Kind        string        `json:"kind,omitempty"` // default text
	Placeholder string        `json:"placeholder,omitempty"`
	Required    bool          `json:"required,omitempty"`
	Options     []FieldChoice `json:"options,omitempty"` // for select
	Value       any           `json:"value,omitempty"`
}

// FormProps: fields with submit and cancel. Actions: submit (value: an
// object of field name → value), cancel.
type FormProps struct {
	Title  string      `json:"title,omitempty"`
	Fields []FormField `json:"fields"`
	Submit string      `json:"submit,omitempty"` // button label
	Cancel string      `json:"cancel,omitempty"` // button label; empty hides it
}

// ImageDropProps: a drop zone for images. Actions: drop (after upload;
// value: {path, w, h, mime, bytes}), dismiss.
type ImageDropProps struct {
	Label    string   `json:"label,omitempty"`
	Accept   []string `json:"accept,omitempty"` // subset of image/png, image/jpeg, image/gif, image/webp
	Multiple bool     `json:"multiple,omitempty"`
}

// ProgressProps: a bar. Value in [0, Max] (Max default 1); nil Value is
// indeterminate. Actions: dismiss.
type ProgressProps struct {
	Label string   `json:"label,omitempty"`
	Value *float64 `json:"value,omitempty"`
	Max   float64  `json:"max,omitempty"`
	Done  bool     `json:"done,omitempty"`
}

// CodeProps: a code block with a copy button. Actions: copy, dismiss.
type CodeProps struct {
	Title    string `json:"title,omitempty"`
	Code     string `json:"code"`
	Language string `json:"language,omitempty"`
}

func (NoteProps) ComponentType() string      { return ComponentNote }
func (OptionsProps) ComponentType() string   { return ComponentOptions }
func (SliderProps) ComponentType() string    { return ComponentSlider }
func (ToggleProps) ComponentType() string    { return ComponentToggle }
func (FormProps) ComponentType() string      { return ComponentForm }
func (ImageDropProps) ComponentType() string { return ComponentImageDrop }
func (ProgressProps) ComponentType() string  { return ComponentProgress }
func (CodeProps) ComponentType() string      { return ComponentCode }
